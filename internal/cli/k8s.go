package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/k8sjob"
	"github.com/dbharness/dbharness/internal/report"
)

// k8sOpts are `dbharness k8s job`'s own flags; the rest go to each shard's
// run.
type k8sOpts struct {
	shards                         int
	image, secret, name, namespace string
	group, cpu, memory             string
}

func (o *k8sOpts) flags(fs *pflag.FlagSet) {
	fs.IntVar(&o.shards, "shards", 0, "number of shards: the Job's pods, each running shard I/N of the group (required)")
	fs.StringVar(&o.image, "image", "", "container image with dbharness as its entrypoint, built from the repository's Dockerfile (required)")
	fs.StringVar(&o.secret, "results-secret", "", "Secret holding the database URL under key "+k8sjob.SecretKeyDB+" and the results store's (postgres://...) under key "+k8sjob.SecretKeyResults+" (required); the manifest names it, never the URLs")
	fs.StringVar(&o.name, "name", "", "the Job's name (default dbharness-WORKLOAD-TIME)")
	fs.StringVar(&o.namespace, "namespace", "", "the Job's namespace (default: kubectl's)")
	fs.StringVar(&o.group, "group", "", "the group the shards run under, which show, report and compare name (default: the Job's name)")
	fs.StringVar(&o.cpu, "cpu", "", "each pod's CPU, requested and limited (e.g. 2): a load generator should have the CPU it is measured with")
	fs.StringVar(&o.memory, "memory", "", "each pod's memory, requested and limited (e.g. 1Gi)")
}

// k8sRefused are run flags a Job cannot take, and why.
var k8sRefused = []struct{ flag, why string }{
	{"db", "the database URL comes from the Secret (key " + k8sjob.SecretKeyDB + "), never from the manifest"},
	{"results", "the results store's URL comes from the Secret (key " + k8sjob.SecretKeyResults + "), never from the manifest"},
	{"no-save", "the group's result is what the shards save"},
	{"shard", "the Job sets each pod's shard"},
	{"json", "files written in a pod are lost with it; read the group with `dbharness show GROUP --json`"},
	{"hdr-log", "files written in a pod are lost with it; use `dbharness report GROUP --hdr-log F`"},
	{"script", "a script file is not in the image"},
}

func (a *app) cmdK8s(args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(a.stdout, k8sUsage)
		if len(args) == 0 {
			return usagef("`dbharness k8s` needs a subcommand: job")
		}
		return pflag.ErrHelp
	}
	if args[0] != "job" {
		return usagef("unknown subcommand `dbharness k8s %s`; the one there is: job", args[0])
	}
	// The Job's own flags are those k8sOpts defines; the rest go to the
	// shards' run.
	names, _ := splitNames((&k8sOpts{}).flags)
	own, rest, err := splitFlags(args[1:], names, nil)
	if err != nil {
		return err
	}
	var o k8sOpts
	fs := pflag.NewFlagSet("k8s job", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.flags(fs)
	if err := fs.Parse(own); err != nil {
		return usagef("%s (for `dbharness k8s job`)", flagError(err))
	}
	for _, r := range rest {
		if r == "-h" || r == "--help" {
			fmt.Fprintf(a.stdout, "%s\nJob flags:\n%s\nEvery other flag is given to each shard's run; see `dbharness run WORKLOAD --help`.\n", k8sUsage, fs.FlagUsages())
			return pflag.ErrHelp
		}
	}
	if len(rest) == 0 || strings.HasPrefix(rest[0], "-") {
		return usagef("`dbharness k8s job` needs a workload: dbharness k8s job WORKLOAD --shards N --image IMAGE --results-secret NAME [run flags]")
	}
	workload, runArgs := rest[0], rest[1:]
	if strings.HasSuffix(workload, ".yaml") || strings.HasSuffix(workload, ".yml") {
		return usagef("%s: a workload file is not in the image; give a built-in workload (`dbharness workloads`), or build an image that holds the file", workload)
	}
	switch {
	case o.shards < 1:
		return usagef("give --shards N, the number of pods (at least 1)")
	case o.image == "":
		return usagef("give --image, the container image with dbharness (see the Dockerfile)")
	case o.secret == "":
		return usagef("give --results-secret NAME, the Secret with the database URL (key %s) and the results store's (key %s)", k8sjob.SecretKeyDB, k8sjob.SecretKeyResults)
	}
	if o.name == "" {
		o.name = "dbharness-" + strings.ToLower(workload) + "-" + time.Now().UTC().Format("20060102-150405")
	}
	if o.group == "" {
		o.group = o.name
	}
	spec := k8sjob.Spec{Name: o.name, Namespace: o.namespace, Group: o.group, Shards: o.shards, Image: o.image,
		Secret: o.secret, Workload: workload, Flags: runArgs, CPU: o.cpu, Memory: o.memory}
	if err := spec.Validate(); err != nil {
		return usageError{err.Error()}
	}
	// Flags a pod cannot use, among the user's (the Job adds --shard),
	// and every report format's file.
	refusedWhy := k8sRefused
	for _, f := range report.Formats() {
		if f.Run != nil {
			refusedWhy = append(refusedWhy, struct{ flag, why string }{f.Name,
				fmt.Sprintf("files written in a pod are lost with it; use `dbharness report GROUP --%s %s`", f.Name, f.Arg()[:1])})
		}
	}
	refused := map[string]bool{}
	for _, r := range refusedWhy {
		refused[r.flag] = r.flag != "no-save"
	}
	if mine, _, err := splitFlags(runArgs, refused, nil); err == nil && len(mine) > 0 {
		name, _, _ := strings.Cut(strings.TrimPrefix(mine[0], "--"), "=")
		for _, r := range refusedWhy {
			if r.flag == name {
				return usagef("--%s cannot be given to a Kubernetes Job: %s", name, r.why)
			}
		}
	}
	// What each pod runs must parse as a run here, with the shard it gets
	// there: a mistake shows now, not in N pods' logs.
	if _, err := a.parseRun(spec.ShardArgs(fmt.Sprintf("0/%d", o.shards))[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usagef("each pod's run would be refused: %v", err)
	}
	y, err := spec.YAML()
	if err != nil {
		return err
	}
	_, err = a.stdout.Write(y)
	return err
}

const k8sUsage = `Usage: dbharness k8s job WORKLOAD --shards N --image IMAGE --results-secret NAME [run and workload flags]

Prints a Kubernetes Job (batch/v1, completionMode Indexed) whose N pods each run
shard $JOB_COMPLETION_INDEX/N of one group, with the database and results store
URLs from the Secret. Apply it with kubectl apply -f, then read the merged
result with dbharness show GROUP (see docs/kubernetes.md).
`
