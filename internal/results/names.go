package results

import (
	"net/url"
	"path"
	"slices"
	"strings"
)

// ShortDB names a database in a few words for the listings of runs and
// sweeps: the engine and the target's host, port and database, without
// its user, parameters or secrets ("postgresql 127.0.0.1:5432/test",
// "sqlite default.db"). target is a run's Target (a URL, or libpq's
// key=value string, already without secrets); engine may be empty.
func ShortDB(engine, target string) string {
	where := shortTarget(target)
	switch {
	case engine == "":
		return where
	case where == "":
		return engine
	}
	return engine + " " + where
}

// shortTarget is the host, port and database of a target, or a database
// file's name.
func shortTarget(target string) string {
	if target == "" {
		return ""
	}
	if !strings.Contains(target, "://") {
		return keyValueTarget(target)
	}
	u, err := url.Parse(target)
	if err != nil {
		return ""
	}
	if u.Host == "" || strings.HasPrefix(u.Scheme, "sqlite") {
		// A database file: its name.
		return path.Base(u.Host + u.Path)
	}
	return u.Host + strings.TrimSuffix(u.Path, "/")
}

// keyValueTarget is the host, port and database of libpq's key=value
// connection string ("host=h port=5433 dbname=d").
func keyValueTarget(s string) string {
	kv := map[string]string{}
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if ok {
			kv[strings.ToLower(k)] = strings.Trim(v, "'")
		}
	}
	where := kv["host"]
	if where == "" {
		where = kv["hostaddr"]
	}
	if p := kv["port"]; p != "" {
		where += ":" + p
	}
	if d := kv["dbname"]; d != "" {
		where += "/" + d
	}
	return where
}

// DB is the run's database in a few words (ShortDB).
func (r *Run) DB() string { return ShortDB(r.Engine.Engine, r.Target) }

// Name is the run's workload, with its mix when the workload records one:
// "tpcb select-only", "tpcc".
func (r *Run) Name() string { return WorkloadMix(r.Workload, r.Mix) }

// WorkloadMix is a workload's name with its mix: "tpcb select-only".
func WorkloadMix(workload, mix string) string {
	if mix == "" {
		return workload
	}
	return workload + " " + mix
}

// Quoted is a label as it follows an id in a line of text: ` "label"`,
// or "" for no label.
func Quoted(label string) string {
	if label == "" {
		return ""
	}
	return ` "` + label + `"`
}

// mixSep joins the mixes of a sweep that varies its workload's mix.
const mixSep = " | "

// AddMix adds a run's mix to the sweep's, once.
func (sw *Sweep) AddMix(mix string) {
	if mix == "" {
		return
	}
	if sw.Mix == "" {
		sw.Mix = mix
		return
	}
	if slices.Contains(strings.Split(sw.Mix, mixSep), mix) {
		return
	}
	sw.Mix += mixSep + mix
}

// DB is the sweep's database in a few words (ShortDB): its engine once a
// run has completed.
func (sw *Sweep) DB() string {
	e := ""
	if sw.Engine != nil {
		e = sw.Engine.Engine
	}
	return ShortDB(e, sw.Target)
}

// Name is the sweep's workload with its mix (WorkloadMix).
func (sw *Sweep) Name() string { return WorkloadMix(sw.Workload, sw.Mix) }

// WorkloadsNote is the note of a comparison of two different workloads
// (WorkloadsDiffer), which the reports put first.
func (c *Comparison) WorkloadsNote() string {
	if !c.WorkloadsDiffer {
		return ""
	}
	return "the workloads differ: A ran " + WorkloadMix(c.A.Workload, c.A.Mix) + ", B " + WorkloadMix(c.B.Workload, c.B.Mix) +
		"; their figures measure different work, and a transaction type only one of them ran has no change"
}

// Side names one side of a comparison in a line of text: `run ID "label"
// (tpcb select-only)`.
func (s CompareSide) Side() string {
	return s.Kind + " " + s.ID + Quoted(s.Label) + " (" + WorkloadMix(s.Workload, s.Mix) + ")"
}
