// Package k8sjob makes the Kubernetes Job that runs a sharded dbharness run:
// an indexed batch/v1 Job of N pods, pod I running shard I/N of one group.
// It builds the manifest from the Kubernetes API's own types, so what it
// prints has the schema the API server checks, and takes the database's and
// the results store's URLs from a Secret, never from the manifest.
package k8sjob

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// The Secret's keys, and the environment variables dbharness reads them
// from (--db's and --results' defaults).
const (
	SecretKeyDB      = "db"
	SecretKeyResults = "results"
	EnvDB            = "DBHARNESS_DB"
	EnvResults       = "DBHARNESS_RESULTS"
)

// GroupLabel labels the Job and its pods with the group they run.
const GroupLabel = "dbharness.io/group"

// Spec is what the Job runs.
type Spec struct {
	// Name is the Job's name; Namespace its namespace (empty: the one
	// kubectl applies it to).
	Name, Namespace string
	// Group is the group the shards run under (--group).
	Group string
	// Shards is the number of pods, each a shard of the group.
	Shards int
	// Image is the container image holding the dbharness binary as its
	// entrypoint.
	Image string
	// Secret names the Secret with the URLs, under SecretKeyDB and
	// SecretKeyResults.
	Secret string
	// Workload is what each shard runs, with Flags: the run's and the
	// workload's flags, without --shard and --group, which the Job sets.
	Workload string
	Flags    []string
	// CPU and Memory, when set, are each pod's requests and limits
	// (Kubernetes quantities: 2, 500m, 1Gi): a load generator should have
	// the CPU it is measured with.
	CPU, Memory string
}

// Validate checks what the API server would refuse, naming the flag.
func (s *Spec) Validate() error {
	for _, c := range []struct{ flag, v string }{{"--name", s.Name}, {"--results-secret", s.Secret}} {
		if errs := validation.IsDNS1123Subdomain(c.v); len(errs) > 0 {
			return fmt.Errorf("%s %q is not a Kubernetes name: %s", c.flag, c.v, strings.Join(errs, "; "))
		}
	}
	if s.Namespace != "" {
		if errs := validation.IsDNS1123Label(s.Namespace); len(errs) > 0 {
			return fmt.Errorf("--namespace %q is not a Kubernetes namespace name: %s", s.Namespace, strings.Join(errs, "; "))
		}
	}
	// Indexed Jobs name their pods' hosts NAME-INDEX, a DNS label.
	if max := 63 - 1 - len(fmt.Sprint(max(s.Shards-1, 0))); len(s.Name) > max {
		return fmt.Errorf("--name %q is too long for the pods' host names (NAME-INDEX); keep it to %d characters", s.Name, max)
	}
	if errs := validation.IsValidLabelValue(s.Group); len(errs) > 0 || s.Group == "" {
		return fmt.Errorf("--group %q cannot label the Job (letters, digits, '-', '_' and '.', at most 63): %s", s.Group, strings.Join(errs, "; "))
	}
	switch {
	case s.Shards < 1:
		return fmt.Errorf("--shards %d: give at least 1", s.Shards)
	case s.Shards > 10000:
		return fmt.Errorf("--shards %d is too many; at most 10000", s.Shards)
	case s.Image == "":
		return fmt.Errorf("give --image, the container image with dbharness (see the Dockerfile)")
	}
	for _, q := range []struct{ flag, v string }{{"--cpu", s.CPU}, {"--memory", s.Memory}} {
		if q.v == "" {
			continue
		}
		if _, err := resource.ParseQuantity(q.v); err != nil {
			return fmt.Errorf("%s %q is not a Kubernetes quantity (e.g. 2, 500m, 1Gi)", q.flag, q.v)
		}
	}
	return nil
}

// Args are the container's arguments: the run of shard
// $JOB_COMPLETION_INDEX of the group.
func (s *Spec) Args() []string { return s.ShardArgs(fmt.Sprintf("auto/%d", s.Shards)) }

// ShardArgs are the arguments of dbharness that run shard (I/N, or auto/N)
// of the group.
func (s *Spec) ShardArgs(shard string) []string {
	args := []string{"run", s.Workload, "--shard", shard, "--group", s.Group}
	return append(args, s.Flags...)
}

// Job is the manifest's object.
func (s *Spec) Job() (*batchv1.Job, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	n := int32(s.Shards)
	indexed := batchv1.IndexedCompletion
	// A shard that failed is not run again: a second try would start after
	// the group's common start and measure something else. The group shows
	// it as partial instead, with the others' data kept.
	backoff := int32(0)
	labels := map[string]string{"app.kubernetes.io/name": "dbharness", GroupLabel: s.Group}
	secretEnv := func(name, key string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: s.Secret}, Key: key}}}
	}
	c := corev1.Container{
		Name:            "dbharness",
		Image:           s.Image,
		Args:            s.Args(),
		ImagePullPolicy: corev1.PullIfNotPresent,
		Env:             []corev1.EnvVar{secretEnv(EnvDB, SecretKeyDB), secretEnv(EnvResults, SecretKeyResults)},
	}
	if s.CPU != "" || s.Memory != "" {
		rl := corev1.ResourceList{}
		if s.CPU != "" {
			rl[corev1.ResourceCPU] = resource.MustParse(s.CPU)
		}
		if s.Memory != "" {
			rl[corev1.ResourceMemory] = resource.MustParse(s.Memory)
		}
		c.Resources = corev1.ResourceRequirements{Requests: rl, Limits: rl}
	}
	// Shards on different nodes where the cluster has them: the point of
	// sharding is more than one machine's clients.
	spread := &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
			Weight: 100,
			PodAffinityTerm: corev1.PodAffinityTerm{
				TopologyKey:   "kubernetes.io/hostname",
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{GroupLabel: s.Group}},
			},
		}},
	}}
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			CompletionMode: &indexed,
			Completions:    &n,
			Parallelism:    &n,
			BackoffLimit:   &backoff,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{c},
					Affinity:      spread,
				},
			},
		},
	}, nil
}

// YAML is the Job as a manifest for kubectl apply.
func (s *Spec) YAML() ([]byte, error) {
	j, err := s.Job()
	if err != nil {
		return nil, err
	}
	return yaml.Marshal(j)
}
