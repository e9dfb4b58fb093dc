package k8sjob

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func spec() Spec {
	return Spec{Name: "dbharness-tpcb-1", Group: "g1", Shards: 3, Image: "registry.example/dbharness:1", Secret: "dbh-urls",
		Workload: "tpcb", Flags: []string{"-c", "12", "--mix", "select-only"}, CPU: "2", Memory: "512Mi"}
}

// The manifest reads back, field for field, as the API's Job type (strict:
// a field the type does not have fails), and is an indexed Job of N pods
// each running its shard of the group, with the URLs from the Secret.
func TestTheManifestIsAnIndexedJobOfTheShards(t *testing.T) {
	s := spec()
	y, err := s.YAML()
	if err != nil {
		t.Fatal(err)
	}
	var j batchv1.Job
	if err := yaml.UnmarshalStrict(y, &j); err != nil {
		t.Fatalf("the manifest does not read back as a Job: %v\n%s", err, y)
	}
	if j.APIVersion != "batch/v1" || j.Kind != "Job" || j.Name != s.Name {
		t.Errorf("%s %s %s", j.APIVersion, j.Kind, j.Name)
	}
	sp := j.Spec
	if sp.CompletionMode == nil || *sp.CompletionMode != batchv1.IndexedCompletion ||
		sp.Completions == nil || *sp.Completions != 3 || sp.Parallelism == nil || *sp.Parallelism != 3 ||
		sp.BackoffLimit == nil || *sp.BackoffLimit != 0 {
		t.Errorf("job spec %+v", sp)
	}
	pod := sp.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever || len(pod.Containers) != 1 {
		t.Fatalf("pod spec %+v", pod)
	}
	c := pod.Containers[0]
	want := "run tpcb --shard auto/3 --group g1 -c 12 --mix select-only"
	if got := strings.Join(c.Args, " "); got != want || c.Image != s.Image {
		t.Errorf("container %s runs %q, want %q", c.Image, got, want)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != "dbh-urls" {
			t.Errorf("env %s is not from the Secret: %+v", e.Name, e)
			continue
		}
		env[e.Name] = e.ValueFrom.SecretKeyRef.Key
	}
	if env[EnvDB] != SecretKeyDB || env[EnvResults] != SecretKeyResults {
		t.Errorf("env %v", env)
	}
	if cpu := c.Resources.Limits.Cpu(); cpu.String() != "2" || c.Resources.Requests.Memory().String() != "512Mi" {
		t.Errorf("resources %+v", c.Resources)
	}
	if pod.Affinity == nil || pod.Affinity.PodAntiAffinity == nil || j.Labels[GroupLabel] != "g1" || sp.Template.Labels[GroupLabel] != "g1" {
		t.Errorf("the shards are not spread by their group's label: %+v %v", pod.Affinity, sp.Template.Labels)
	}
	if strings.Contains(string(y), "://") {
		t.Errorf("the manifest holds a URL:\n%s", y)
	}
}

func TestWhatTheAPIServerWouldRefuseIsRefusedFirst(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"no shards", func(s *Spec) { s.Shards = 0 }, "--shards 0"},
		{"no image", func(s *Spec) { s.Image = "" }, "--image"},
		{"a name with capitals", func(s *Spec) { s.Name = "Bench" }, `--name "Bench" is not a Kubernetes name`},
		{"a name too long for the hosts", func(s *Spec) { s.Name = strings.Repeat("a", 62) }, "keep it to 61 characters"},
		{"a Secret that is no name", func(s *Spec) { s.Secret = "my_secret" }, `--results-secret "my_secret"`},
		{"a group that is no label", func(s *Spec) { s.Group = "a b" }, `--group "a b" cannot label the Job`},
		{"a namespace that is no name", func(s *Spec) { s.Namespace = "Prod" }, `--namespace "Prod"`},
		{"a CPU that is no quantity", func(s *Spec) { s.CPU = "two" }, `--cpu "two" is not a Kubernetes quantity`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := spec()
			tc.edit(&s)
			_, err := s.YAML()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}
