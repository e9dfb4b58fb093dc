package cli_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"

	"github.com/dbharness/dbharness/internal/testdb"
)

// The Job that `k8s job` prints runs, pod by pod, as a group: its
// container's arguments, run here as Kubernetes runs them (one process per
// index with $JOB_COMPLETION_INDEX, the Secret's URLs in the environment),
// make the shards of one group that `show` reads back whole. The manifest
// holds no URL.
func TestAKubernetesJobsPodsRunAsOneGroup(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	target := testdb.Postgres(t, "dbh_k8s")
	store := testdb.Postgres(t, "dbh_k8s_store")
	if r := dbh(t, home, "init", "tpcb", "--db", target); r.code != 0 {
		t.Fatalf("init: %s", r.all())
	}
	const shards = 2
	r := dbh(t, home, "k8s", "job", "tpcb", "--shards", fmt.Sprint(shards), "--image", "registry.example/dbharness:test",
		"--results-secret", "dbh-urls", "--group", "k8s-g1", "--name", "dbh-k8s-test", "-c", "3", "-T", "2", "--mix", "select-only",
		"--collect", "none", "-P", "0")
	if r.code != 0 {
		t.Fatalf("k8s job: exit %d\n%s", r.code, r.all())
	}
	if strings.Contains(r.stdout, "://") {
		t.Errorf("the manifest holds a URL:\n%s", r.stdout)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(r.stdout), &job); err != nil {
		t.Fatalf("not a Job: %v\n%s", err, r.stdout)
	}
	if n := job.Spec.Completions; n == nil || *n != shards || len(job.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("job spec %+v", job.Spec)
	}
	c := job.Spec.Template.Spec.Containers[0]
	// The Secret's keys, as `kubectl create secret` would hold them.
	secret := map[string]string{"db": target, "results": store}
	var env []string
	for _, e := range c.Env {
		ref := e.ValueFrom.SecretKeyRef
		if ref == nil || ref.Name != "dbh-urls" {
			t.Fatalf("env %s is not from the Secret", e.Name)
		}
		env = append(env, e.Name+"="+secret[ref.Key])
	}
	res := make([]result, shards)
	var wg sync.WaitGroup
	for i := range shards {
		wg.Go(func() {
			res[i] = dbhEnv(t, bin, append([]string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)}, env...), t.TempDir(), c.Args...)
		})
	}
	wg.Wait()
	for i, r := range res {
		if r.code != 0 {
			t.Fatalf("pod %d: exit %d\n%s", i, r.code, r.all())
		}
	}
	show := dbhEnv(t, bin, []string{"DBHARNESS_RESULTS=" + store}, home, "show", "k8s-g1", "--json")
	var g struct {
		Status string `json:"status"`
		Config struct {
			Clients int `json:"clients"`
		} `json:"config"`
		Shards []json.RawMessage `json:"shards"`
	}
	if err := json.Unmarshal([]byte(show.stdout), &g); err != nil || show.code != 0 {
		t.Fatalf("show k8s-g1: exit %d, %v\n%s", show.code, err, show.all())
	}
	if g.Status != "completed" || len(g.Shards) != shards || g.Config.Clients != 3 {
		t.Errorf("the group: status %s, %d shards, %d clients; want completed, %d shards of 3 clients in all\n%s", g.Status, len(g.Shards), g.Config.Clients, shards, show.stdout)
	}
}

// What a pod cannot use, or would refuse, is refused when the Job is made,
// in one sentence, and a URL given by mistake is not printed.
func TestAKubernetesJobRefusesWhatItsPodsCannotRun(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	job := []string{"k8s", "job", "tpcb", "--shards", "2", "--image", "i", "--results-secret", "dbh", "-c", "2"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no subcommand", []string{"k8s"}, "`dbharness k8s` needs a subcommand: job"},
		{"another subcommand", []string{"k8s", "deployment"}, "unknown subcommand `dbharness k8s deployment`"},
		{"no workload", []string{"k8s", "job", "--shards", "2"}, "`dbharness k8s job` needs a workload"},
		{"no image", []string{"k8s", "job", "tpcb", "--shards", "2", "--results-secret", "dbh"}, "give --image"},
		{"no Secret", []string{"k8s", "job", "tpcb", "--shards", "2", "--image", "i"}, "give --results-secret NAME"},
		{"a URL inline", append(job, "--db", "postgres://u:Pw0rd@h/db"), "--db cannot be given to a Kubernetes Job"},
		{"a results URL inline", append(job, "--results", "postgres://u:Pw0rd@h/r"), "--results cannot be given to a Kubernetes Job"},
		{"a file the pod would lose", append(job, "--json", "out.json"), "--json cannot be given to a Kubernetes Job"},
		{"a shard of its own", append(job, "--shard", "1/2"), "--shard cannot be given to a Kubernetes Job"},
		{"a workload file", []string{"k8s", "job", "w.yaml", "--shards", "2", "--image", "i", "--results-secret", "dbh"}, "a workload file is not in the image"},
		{"a run flag the run refuses", append(job, "--mix", "nope"), `each pod's run would be refused: --mix "nope" is not a tpcb mix`},
		{"fewer clients than shards", []string{"k8s", "job", "tpcb", "--shards", "3", "--image", "i", "--results-secret", "dbh"}, "--clients 1 is fewer than the shards"},
		{"a name Kubernetes refuses", append(job, "--name", "Bench"), `--name "Bench" is not a Kubernetes name`},
		{"an unknown flag", append(job, "--nope"), "each pod's run would be refused: unknown flag --nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := dbh(t, home, tc.args...)
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if r.code != 2 || !strings.Contains(lines[len(lines)-1], tc.want) || r.stdout != "" && tc.args[len(tc.args)-1] != "k8s" {
				t.Errorf("exit %d; want 2 and %q\n%s", r.code, tc.want, r.all())
			}
			if strings.Contains(r.all(), "Pw0rd") {
				t.Errorf("the password was printed:\n%s", r.all())
			}
		})
	}
}
