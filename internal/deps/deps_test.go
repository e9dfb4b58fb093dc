// Package deps pins the direction of the imports between dbharness's own
// packages. The tree is layered so that a new engine, collector, workload
// or report format is an addition at the edge, never an edit in the middle:
//
//	cmd → cli → sweep → runner → engine, collect → workload → db
//	cli, sweep, runner → store → results → analysis → report
//
// with one package per engine under db (db/postgres, ...) plugging into db
// and collect, named only by db/all; measure, runphase, redact and the
// other leaves are shared by both chains.
//
// Each package's allowed imports are listed below. A new package, or a
// new edge between packages, fails this test until it is added here on
// purpose; an edge that runs against the layering belongs somewhere else.
package deps_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/dbharness/dbharness/"

// allowed maps a package (its path under the module; a trailing "/*"
// stands for every package directly under it) to the project packages it
// may import. The lists are a ceiling: a package may import less.
var allowed = map[string][]string{
	// Leaves: no project imports, or only other leaves.
	"internal/evloop":     {},
	"internal/histogram":  {},
	"internal/hostinfo":   {},
	"internal/selfcost":   {},
	"internal/sqlparams":  {},
	"internal/datagen":    {},
	"internal/analysis":   {},
	"internal/report/svg": {},
	"internal/redact":     {},
	"internal/datadir":    {},
	"internal/runphase":   {},
	"internal/measure":    {},
	"internal/pgbexpr":    {"internal/datagen"},
	"internal/wlfile":     {"internal/datagen", "internal/pgbexpr", "internal/sqlparams"},
	// The Kubernetes Job of a sharded run (`dbharness k8s job`): the API's
	// types, none of ours.
	"internal/k8sjob": {},

	// What a run produced, and what reads it: results, analysis and
	// report know no database and no driver.
	"internal/results": {"internal/histogram", "internal/hostinfo", "internal/measure", "internal/redact", "internal/selfcost"},
	// Where runs are kept: an SQLite file or a PostgreSQL database, each
	// through its driver. Only what saves or reads runs imports it.
	"internal/store":      {"internal/datadir", "internal/redact", "internal/results"},
	"internal/experiment": {"internal/analysis", "internal/results", "internal/runphase"},
	// The storage probe (`dbharness io`) measures files, not a database.
	"internal/iobench": {"internal/histogram", "internal/hostinfo", "internal/results"},
	// A table scan's bandwidth (`dbharness scan`): the engine's package
	// knows the size and the query, through db.TableScanner; the runner
	// says how a run records the server.
	"internal/tablescan": {"internal/db", "internal/histogram", "internal/hostinfo", "internal/results", "internal/runner"},
	"internal/report":    {"internal/analysis", "internal/histogram", "internal/redact", "internal/report/svg", "internal/results", "internal/runphase"},

	// The database core, the workloads, the driver and the evidence. None
	// of them knows an engine: they ask the db.DB for capabilities.
	"internal/db":         {"internal/datadir", "internal/evloop", "internal/redact"},
	"internal/db/sqlconn": {"internal/db"},
	"internal/workload":   {"internal/db"},
	"internal/workload/*": {"internal/datagen", "internal/db", "internal/evloop", "internal/pgbexpr", "internal/sqlparams", "internal/wlfile", "internal/workload"},
	"internal/workload/all": {"internal/workload/file", "internal/workload/inserts", "internal/workload/null", "internal/workload/script",
		"internal/workload/tpcb", "internal/workload/tpcc", "internal/workload/transtats"},
	"internal/engine":  {"internal/db", "internal/evloop", "internal/histogram", "internal/measure", "internal/runphase", "internal/selfcost", "internal/workload"},
	"internal/collect": {"internal/db", "internal/results", "internal/selfcost", "internal/workload"},
	// The live figures for Prometheus: fed the engine's ticks (measure)
	// and the collectors' points (results), knowing neither.
	"internal/metrics": {"internal/measure", "internal/results"},

	// One package per engine: it plugs into db (connections, dialect,
	// catalog) and collect (server counters, waits, plans). Only db/all
	// names them, and what must open a database imports db/all.
	"internal/db/postgres": {"internal/collect", "internal/db", "internal/evloop", "internal/redact", "internal/results"},
	"internal/db/mysql":    {"internal/collect", "internal/db", "internal/db/sqlconn", "internal/evloop", "internal/redact", "internal/results"},
	"internal/db/sqlite":   {"internal/collect", "internal/db", "internal/db/sqlconn", "internal/results"},
	"internal/db/all":      {"internal/db/mysql", "internal/db/postgres", "internal/db/sqlite"},
	"internal/testdb":      {"internal/db", "internal/db/all", "internal/measure", "internal/workload"},

	// A run put together (runner), and an experiment of many (sweep).
	"internal/runner": {"internal/collect", "internal/db", "internal/engine", "internal/hostinfo", "internal/metrics", "internal/report", "internal/results", "internal/store", "internal/workload"},
	"internal/sweep":  {"internal/experiment", "internal/results", "internal/runner", "internal/store"},

	// The command line parses and prints; the binary registers the
	// engines and workloads.
	"internal/cli": {"internal/collect", "internal/db", "internal/engine", "internal/experiment", "internal/hostinfo", "internal/iobench", "internal/k8sjob", "internal/metrics", "internal/redact", "internal/report",
		"internal/results", "internal/runner", "internal/store", "internal/sweep", "internal/tablescan", "internal/workload", "internal/workload/all", "internal/workload/script"},
	"cmd/dbharness":     {"internal/cli", "internal/db/all"},
	"bench/pairs":       {"internal/selfcost"},
	"bench/iofio":       {},
	"bench/metricscost": {"internal/measure", "internal/metrics", "internal/results"},
	// collectcost -load runs a load as the binary does (cli.Main), so
	// that the collectors it measures share the load's process.
	"bench/collectcost": {"internal/cli", "internal/collect", "internal/db", "internal/db/all", "internal/db/postgres"},
}

// rule returns the allowed imports of pkg and the key that gave them.
func rule(rules map[string][]string, pkg string) ([]string, string, bool) {
	if a, ok := rules[pkg]; ok {
		return a, pkg, true
	}
	if i := strings.LastIndex(pkg, "/"); i > 0 {
		k := pkg[:i] + "/*"
		if a, ok := rules[k]; ok {
			return a, k, true
		}
	}
	return nil, "", false
}

// check returns one line per import that rules do not allow, per package
// missing from rules, and per rule that names no package.
func check(rules map[string][]string, graph map[string][]string) []string {
	var bad []string
	used := map[string]bool{}
	for _, pkg := range sortedKeys(graph) {
		a, key, ok := rule(rules, pkg)
		if !ok {
			bad = append(bad, fmt.Sprintf("%s is a new package: add it, with the imports it may have, to deps_test.go", pkg))
			continue
		}
		used[key] = true
		for _, imp := range graph[pkg] {
			if !slices.Contains(a, imp) {
				bad = append(bad, fmt.Sprintf("%s imports %s, which runs against the layering (allowed: %s)", pkg, imp, strings.Join(a, ", ")))
			}
		}
	}
	for _, k := range sortedKeys(rules) {
		if !used[k] {
			bad = append(bad, fmt.Sprintf("deps_test.go lists %s, which is not a package (any more)", k))
		}
	}
	return bad
}

// imports reads the project imports of every non-test Go file under the
// repository root, by package directory.
func imports(t *testing.T, root string) map[string][]string {
	t.Helper()
	graph := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if _, ok := graph[pkg]; !ok {
			graph[pkg] = nil
		}
		for _, s := range f.Imports {
			p, err := strconv.Unquote(s.Path.Value)
			if err != nil {
				return err
			}
			if rest, ok := strings.CutPrefix(p, module); ok && !slices.Contains(graph[pkg], rest) {
				graph[pkg] = append(graph[pkg], rest)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range graph {
		sort.Strings(v)
	}
	return graph
}

func sortedKeys(m map[string][]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func TestImportsFollowTheLayering(t *testing.T) {
	graph := imports(t, filepath.Join("..", ".."))
	if len(graph) < 20 || graph["internal/cli"] == nil {
		t.Fatalf("read %d packages, which is not this repository's tree", len(graph))
	}
	for _, line := range check(allowed, graph) {
		t.Error(line)
	}
}

// TestCheckFindsABackEdge keeps the check honest: an import against the
// layering, a package nobody listed and a stale rule are all reported.
func TestCheckFindsABackEdge(t *testing.T) {
	rules := map[string][]string{
		"internal/db":         {},
		"internal/workload":   {"internal/db"},
		"internal/workload/*": {"internal/workload", "internal/db"},
		"internal/gone":       {},
	}
	graph := map[string][]string{
		"internal/db":            {"internal/workload"},
		"internal/workload":      {"internal/db"},
		"internal/workload/tpcb": {"internal/db", "internal/workload"},
		"internal/new":           {"internal/db"},
	}
	got := strings.Join(check(rules, graph), "\n")
	for _, want := range []string{
		"internal/db imports internal/workload",
		"internal/new is a new package",
		"lists internal/gone",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the check missed %q; it said:\n%s", want, got)
		}
	}
	if strings.Contains(got, "internal/workload/tpcb") {
		t.Errorf("the check refused an allowed import:\n%s", got)
	}
}
