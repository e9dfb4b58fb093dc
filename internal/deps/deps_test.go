// Package deps pins the direction of the imports between dbharness's own
// packages. The tree is layered so that a new engine, collector, workload
// or report format is an addition at the edge, never an edit in the middle:
//
//	cmd → cli → sweep → runner → loadgen, collect → workload → db
//	cli, sweep, runner → store → results → analysis → report
//
// with one package per engine under db (db/postgres, ...) plugging into db
// and implementing the evidence contract (evidence, which collect reads and
// results stores), named only by db/all; measure, runphase, redact, procfs
// and the other leaves are shared by both chains.
//
// Each package's allowed imports are listed below. A new package, or a
// new edge between packages, fails this test until it is added here on
// purpose; an edge that runs against the layering belongs somewhere else.
//
// Database drivers are held to the edge too: only the engines' packages,
// the results store and the tests' databases import one, and only what
// opens a database or the store links one (drivers, mayLinkDrivers).
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
	"internal/numfmt":     {},
	// What /proc says of this host's processes, for the collectors and
	// the drivers' hot path alike.
	"internal/procfs":   {},
	"internal/datadir":  {},
	"internal/runphase": {},
	"internal/measure":  {},
	"internal/pgbexpr":  {"internal/datagen"},
	"internal/wlfile":   {"internal/datagen", "internal/pgbexpr", "internal/sqlparams"},
	// The Kubernetes Job of a sharded run (`dbharness k8s job`): the API's
	// types, none of ours.
	"internal/k8sjob": {},

	// What a run produced, and what reads it: results, analysis and
	// report know no database and no driver.
	"internal/results": {"internal/evidence", "internal/histogram", "internal/hostinfo", "internal/measure", "internal/redact", "internal/selfcost"},
	// Where runs are kept: an SQLite file or a PostgreSQL database, each
	// through its driver. Only what saves or reads runs imports it.
	"internal/store":      {"internal/datadir", "internal/evidence", "internal/redact", "internal/results"},
	"internal/experiment": {"internal/analysis", "internal/numfmt", "internal/results", "internal/runphase"},
	// The storage probe (`dbharness io`) measures files, not a database.
	"internal/iobench": {"internal/histogram", "internal/hostinfo", "internal/results"},
	// A table scan's bandwidth (`dbharness scan`): the engine's package
	// knows the size and the query, through db.TableScanner; the runner
	// says how a run records the server.
	"internal/tablescan": {"internal/db", "internal/histogram", "internal/hostinfo", "internal/results", "internal/runner"},
	"internal/report":    {"internal/analysis", "internal/evidence", "internal/histogram", "internal/numfmt", "internal/redact", "internal/report/svg", "internal/results", "internal/runphase"},

	// The database core, the workloads, the driver and the evidence. None
	// of them knows an engine: they ask the db.DB for capabilities.
	"internal/db":         {"internal/datadir", "internal/evloop", "internal/redact"},
	"internal/db/sqlconn": {"internal/db"},
	// The evidence contract: what an engine's package implements on its
	// db.DB for the collectors (server counters, waits, plans, storage,
	// its server's process) and the values it returns. It knows no
	// collector, workload or run.
	"internal/evidence":   {"internal/db", "internal/procfs"},
	"internal/workload":   {"internal/db"},
	"internal/workload/*": {"internal/datagen", "internal/db", "internal/evloop", "internal/pgbexpr", "internal/sqlparams", "internal/wlfile", "internal/workload"},
	// ch is tpcc's terminals beside analytic query streams: it runs
	// tpcc's transactions, schema and checks as they are.
	"internal/workload/ch": {"internal/datagen", "internal/db", "internal/workload", "internal/workload/tpcc"},
	// tpch generates its data with dbgen, a generator that knows no
	// database (bench/tpchtbl writes the same rows as files).
	"internal/workload/tpch":       {"internal/datagen", "internal/db", "internal/workload", "internal/workload/tpch/dbgen"},
	"internal/workload/tpch/dbgen": {},
	// Each workload's package is linked by workload/all alone, so that a new
	// workload is its package plus its import line there.
	"internal/workload/all": {"internal/workload/*"},
	"internal/loadgen":      {"internal/db", "internal/evloop", "internal/histogram", "internal/measure", "internal/runphase", "internal/selfcost", "internal/workload"},
	"internal/collect":      {"internal/db", "internal/evidence", "internal/procfs", "internal/results", "internal/selfcost", "internal/workload"},
	// The live figures for Prometheus: fed the load generator's ticks (measure)
	// and the collectors' points (evidence, results), knowing neither.
	"internal/metrics": {"internal/evidence", "internal/measure", "internal/results"},
	// The pre-flight check (`dbharness doctor`, and the host's part before
	// every run): /proc and /sys of this host, and the server's settings
	// through the engine's evidence.ServerChecker.
	"internal/doctor": {"internal/db", "internal/evidence", "internal/procfs"},

	// One package per engine: it plugs into db (connections, dialect,
	// catalog) and implements evidence (server counters, waits, plans,
	// storage), never knowing the collectors, the workloads or the run.
	// Only db/all names them, and what must open a database imports db/all.
	// The rule is one for every engine, so that a new engine is its package
	// plus its import line in db/all.
	"internal/db/*":   {"internal/db", "internal/db/sqlconn", "internal/evidence", "internal/evloop", "internal/procfs", "internal/redact"},
	"internal/db/all": {"internal/db/*"},
	// testdb opens every engine (db/all), which implement evidence: it may
	// run an engine's evidence (its pre-flight checks) for the engines'
	// tests.
	"internal/testdb": {"internal/db", "internal/db/all", "internal/evidence", "internal/measure", "internal/workload"},

	// A run put together (runner), and an experiment of many (sweep).
	"internal/runner": {"internal/collect", "internal/db", "internal/doctor", "internal/loadgen", "internal/evidence", "internal/hostinfo", "internal/metrics", "internal/report", "internal/results", "internal/store", "internal/workload"},
	"internal/sweep":  {"internal/experiment", "internal/numfmt", "internal/results", "internal/runner", "internal/store"},

	// The command line parses and prints; the binary registers the
	// engines and workloads.
	"internal/cli": {"internal/collect", "internal/db", "internal/doctor", "internal/loadgen", "internal/experiment", "internal/hostinfo", "internal/iobench", "internal/k8sjob", "internal/metrics", "internal/redact", "internal/report",
		"internal/results", "internal/runner", "internal/store", "internal/sweep", "internal/tablescan", "internal/workload", "internal/workload/all", "internal/workload/script"},
	"cmd/dbharness": {"internal/cli", "internal/db/all"},
	"bench/pairs":   {"internal/selfcost"},
	"bench/iofio":   {},
	"bench/tpchtbl": {"internal/workload/tpch/dbgen"},
	// baremssql is go-mssqldb alone, what dbharness's SQL Server engine is
	// measured against: it imports the driver and nothing of ours.
	"bench/baremssql":   {},
	"bench/metricscost": {"internal/evidence", "internal/measure", "internal/metrics"},
	// collectcost -load runs a load as the binary does (cli.Main), so
	// that the collectors it measures share the load's process.
	"bench/collectcost": {"internal/cli", "internal/collect", "internal/db", "internal/db/all", "internal/db/postgres", "internal/evidence"},
}

// drivers are the database drivers, by the prefix of their import paths:
// PostgreSQL's, MySQL's, SQLite's and SQL Server's.
var drivers = []string{"github.com/jackc/pgx", "github.com/go-sql-driver/mysql", "modernc.org/sqlite", "github.com/microsoft/go-mssqldb"}

// driverImporters are the packages that may import a driver: an engine's
// package under db (and db/sqlconn, should it need one), the results store
// and the tests' databases.
var driverImporters = []string{"internal/db/*", "internal/store", "internal/testdb", "bench/baremssql"}

// mayLinkDrivers are the packages that may link a driver through their
// imports: those that open a database or the results store, and what puts
// them together. Every other package (results, analysis, experiment,
// report, metrics, the leaves, ...) knows no database and links none.
var mayLinkDrivers = []string{
	"internal/db/*", "internal/store", "internal/testdb",
	"internal/runner", "internal/sweep", "internal/tablescan", "internal/cli",
	"cmd/dbharness", "bench/collectcost", "bench/baremssql",
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
			if !listed(a, imp) {
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

// driverOf returns the driver an import path belongs to, if any.
func driverOf(imp string) (string, bool) {
	for _, d := range drivers {
		if imp == d || strings.HasPrefix(imp, d+"/") {
			return d, true
		}
	}
	return "", false
}

// listed says whether pkg is one of pkgs, where a trailing "/*" stands
// for every package directly under it.
func listed(pkgs []string, pkg string) bool {
	for _, p := range pkgs {
		if p == pkg {
			return true
		}
		if dir, ok := strings.CutSuffix(p, "/*"); ok && strings.HasPrefix(pkg, dir+"/") && !strings.Contains(pkg[len(dir)+1:], "/") {
			return true
		}
	}
	return false
}

// checkDrivers returns one line per driver import that drivers may not
// have, and per package that links a driver through project imports (a
// path through graph to a package whose third-party imports, in external,
// hold one) that mayLink does not list.
func checkDrivers(importers, mayLink []string, graph, external map[string][]string) []string {
	var bad []string
	for _, pkg := range sortedKeys(external) {
		if listed(importers, pkg) {
			continue
		}
		for _, imp := range external[pkg] {
			if _, ok := driverOf(imp); ok {
				bad = append(bad, fmt.Sprintf("%s imports the database driver %s, which only %s may import", pkg, imp, strings.Join(importers, ", ")))
			}
		}
	}
	for _, pkg := range sortedKeys(graph) {
		if listed(mayLink, pkg) {
			continue
		}
		if via, drv, ok := linksDriver(pkg, graph, external); ok {
			bad = append(bad, fmt.Sprintf("%s links the database driver %s through %s, but it opens no database (mayLinkDrivers lists those that do)",
				pkg, drv, strings.Join(via, " → ")))
		}
	}
	return bad
}

// linksDriver finds, breadth first, a shortest path of project imports
// from pkg to a package that imports a driver, and returns the path (pkg
// first) and the driver.
func linksDriver(pkg string, graph, external map[string][]string) ([]string, string, bool) {
	from := map[string]string{pkg: ""}
	queue := []string{pkg}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range external[p] {
			if _, ok := driverOf(imp); ok {
				var via []string
				for q := p; q != ""; q = from[q] {
					via = append([]string{q}, via...)
				}
				return via, imp, true
			}
		}
		for _, q := range graph[p] {
			if _, seen := from[q]; !seen {
				from[q] = p
				queue = append(queue, q)
			}
		}
	}
	return nil, "", false
}

// imports reads the imports of every non-test Go file under the
// repository root, by package directory: the project's own (graph) and
// those of other modules (external; the standard library's are left out).
func imports(t *testing.T, root string) (graph, external map[string][]string) {
	t.Helper()
	graph, external = map[string][]string{}, map[string][]string{}
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
			} else if !ok && strings.Contains(strings.Split(p, "/")[0], ".") && !slices.Contains(external[pkg], p) {
				external[pkg] = append(external[pkg], p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []map[string][]string{graph, external} {
		for _, v := range m {
			sort.Strings(v)
		}
	}
	return graph, external
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
	graph, _ := imports(t, filepath.Join("..", ".."))
	if len(graph) < 20 || graph["internal/cli"] == nil {
		t.Fatalf("read %d packages, which is not this repository's tree", len(graph))
	}
	for _, line := range check(allowed, graph) {
		t.Error(line)
	}
}

// TestDatabaseDriversStayAtTheEdge keeps the drivers where databases are
// opened: the model and report side (results, analysis, experiment,
// report, metrics, ...) neither imports a driver nor links one.
func TestDatabaseDriversStayAtTheEdge(t *testing.T) {
	graph, external := imports(t, filepath.Join("..", ".."))
	if len(external["internal/store"]) == 0 {
		t.Fatalf("read no driver import of internal/store, which is not this repository's tree")
	}
	for _, line := range checkDrivers(driverImporters, mayLinkDrivers, graph, external) {
		t.Error(line)
	}
	// A listed package that is gone is a stale rule.
	for _, p := range slices.Concat(driverImporters, mayLinkDrivers) {
		found := false
		for pkg := range graph {
			found = found || listed([]string{p}, pkg)
		}
		if !found {
			t.Errorf("deps_test.go lets %s import or link a database driver, but it is not a package (any more)", p)
		}
	}
}

// TestDriverCheckFindsADriverOffTheEdge keeps the driver check honest: a
// driver imported outside the edge, and one linked through a project
// import, are both reported, with the path that links it.
func TestDriverCheckFindsADriverOffTheEdge(t *testing.T) {
	graph := map[string][]string{
		"internal/report":   {"internal/results"},
		"internal/results":  {"internal/store"},
		"internal/store":    nil,
		"internal/db/mssql": nil,
		"internal/cli":      {"internal/store"},
		"internal/metrics":  {"internal/measure"},
		"internal/measure":  nil,
	}
	external := map[string][]string{
		"internal/store":    {"modernc.org/sqlite"},
		"internal/db/mssql": {"github.com/microsoft/go-mssqldb"},
		"internal/measure":  {"github.com/jackc/pgx/v5/pgconn"},
	}
	got := strings.Join(checkDrivers([]string{"internal/db/*", "internal/store"}, []string{"internal/db/*", "internal/store", "internal/cli"}, graph, external), "\n")
	for _, want := range []string{
		"internal/measure imports the database driver github.com/jackc/pgx/v5/pgconn, which only",
		"internal/report links the database driver modernc.org/sqlite through internal/report → internal/results → internal/store, but",
		"internal/results links the database driver modernc.org/sqlite through internal/results → internal/store, but",
		"internal/metrics links the database driver github.com/jackc/pgx/v5/pgconn through internal/metrics → internal/measure, but",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the check missed %q; it said:\n%s", want, got)
		}
	}
	for _, ok := range []string{"internal/cli ", "internal/store ", "internal/db/mssql "} {
		if strings.Contains(got, "\n"+ok) || strings.HasPrefix(got, ok) {
			t.Errorf("the check refused %s, which may link a driver:\n%s", ok, got)
		}
	}
}

// TestCheckFindsABackEdge keeps the check honest: an import against the
// layering, a package nobody listed and a stale rule are all reported.
func TestCheckFindsABackEdge(t *testing.T) {
	rules := map[string][]string{
		"internal/db":           {},
		"internal/workload":     {"internal/db"},
		"internal/workload/*":   {"internal/workload", "internal/db"},
		"internal/workload/all": {"internal/workload/*"},
		"internal/gone":         {},
	}
	graph := map[string][]string{
		"internal/workload/all":  {"internal/workload/tpcb", "internal/db"},
		"internal/db":            {"internal/workload"},
		"internal/workload":      {"internal/db"},
		"internal/workload/tpcb": {"internal/db", "internal/workload"},
		"internal/new":           {"internal/db"},
	}
	got := strings.Join(check(rules, graph), "\n")
	for _, want := range []string{
		"internal/db imports internal/workload",
		"internal/workload/all imports internal/db,",
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
