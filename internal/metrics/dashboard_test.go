package metrics_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/metrics"
)

// Dashboard is the Grafana dashboard shipped with the harness.
var Dashboard = filepath.Join("..", "..", "deploy", "grafana", "dbharness.json")

type dashboard struct {
	Templating struct {
		List []struct {
			Name, Type string
			Query      any
			AllValue   string
		}
	}
	Panels []struct {
		Title   string
		Targets []struct{ Expr string }
	}
}

// groupAsRun is how a query names a shard's series by its group: the
// run label, set from run_id, then from group where there is one.
const groupAsRun = `"run", "$1", "group", "(.+)")`

// metricName matches the harness's metric names in a PromQL expression.
var metricName = regexp.MustCompile(`\bdbharness_[a-z_]+\b`)

func TestTheDashboardQueriesOnlyWhatTheHarnessExports(t *testing.T) {
	b, err := os.ReadFile(Dashboard)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s is not JSON: %v", Dashboard, err)
	}
	exported := metrics.Names()
	used := map[string]bool{}
	breakdown := map[string][]string{}
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			names := metricName.FindAllString(tg.Expr, -1)
			if len(names) == 0 {
				t.Errorf("panel %q: query %q uses no dbharness metric", p.Title, tg.Expr)
			}
			for _, n := range names {
				used[n] = true
				if !slices.Contains(exported, n) {
					t.Errorf("panel %q: query %q uses %s, which the harness does not export", p.Title, tg.Expr, n)
				}
			}
			if !strings.Contains(tg.Expr, `run_id=~"$run_id"`) {
				t.Errorf("panel %q: query %q does not follow the run variable", p.Title, tg.Expr)
			}
			if !strings.Contains(tg.Expr, `group=~"$group"`) {
				t.Errorf("panel %q: query %q does not follow the group variable", p.Title, tg.Expr)
			}
			// A sum is over a group's shards: by run, the group's name
			// for a shard's series and the run_id for another's.
			if strings.Contains(tg.Expr, "sum by") && !strings.Contains(tg.Expr, "by (group, shard") {
				if !strings.Contains(tg.Expr, "sum by (run") || strings.Contains(tg.Expr, "sum by (run_id") || !strings.Contains(tg.Expr, groupAsRun) {
					t.Errorf("panel %q: query %q does not sum a group's shards into one line", p.Title, tg.Expr)
				}
			}
			if strings.Contains(tg.Expr, "by (group, shard") {
				breakdown[p.Title] = append(breakdown[p.Title], tg.Expr)
			}
		}
	}
	// A panel breaks a group down by shard: throughput and p99.
	var shardTPS, shardP99 bool
	for _, exprs := range breakdown {
		for _, e := range exprs {
			shardTPS = shardTPS || strings.Contains(e, "rate("+metrics.Transactions)
			shardP99 = shardP99 || strings.Contains(e, "histogram_quantile(0.99") && strings.Contains(e, metrics.Duration)
		}
	}
	if !shardTPS || !shardP99 {
		t.Errorf("no panel breaks a group's throughput and p99 down by shard (%v)", breakdown)
	}
	// The panels the dashboard promises.
	for _, n := range []string{metrics.Transactions, metrics.Duration, metrics.Duration + "_bucket", metrics.Errors,
		metrics.ClientsDown, metrics.Lag, metrics.Lag + "_bucket", metrics.EvidenceRate} {
		if !used[n] {
			t.Errorf("no panel shows %s", n)
		}
	}
	var hasRun, hasGroup bool
	for _, v := range d.Templating.List {
		q, _ := json.Marshal(v.Query)
		switch v.Name {
		case "run_id":
			hasRun = strings.Contains(string(q), metrics.Transactions)
		case "group":
			// Its All must match the runs of one process, which have no
			// group label.
			hasGroup = strings.Contains(string(q), metrics.Transactions) && strings.Contains(string(q), "group") && v.AllValue == ".*"
		}
	}
	if !hasRun {
		t.Error("the dashboard has no run_id variable drawn from the harness's series")
	}
	if !hasGroup {
		t.Error(`the dashboard has no group variable drawn from the harness's series, whose All is ".*"`)
	}
}
