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
		}
	}
	Panels []struct {
		Title   string
		Targets []struct{ Expr string }
	}
}

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
		}
	}
	// The panels the dashboard promises.
	for _, n := range []string{metrics.Transactions, metrics.Duration, metrics.Duration + "_bucket", metrics.Errors,
		metrics.ClientsDown, metrics.Lag, metrics.Lag + "_bucket", metrics.EvidenceRate} {
		if !used[n] {
			t.Errorf("no panel shows %s", n)
		}
	}
	var hasRun bool
	for _, v := range d.Templating.List {
		if v.Name == "run_id" {
			q, _ := json.Marshal(v.Query)
			hasRun = strings.Contains(string(q), metrics.Transactions)
		}
	}
	if !hasRun {
		t.Error("the dashboard has no run_id variable drawn from the harness's series")
	}
}
