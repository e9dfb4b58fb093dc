package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/report"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/runner"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
)

// lines is the run's text as it is written: its first line, the progress
// header, then one progress line per interval, so that a test can act a
// number of intervals into the run (the intervals follow the wall clock,
// however busy the machine).
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
	n   int
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n += bytes.Count(p, []byte("\n"))
	return l.buf.Write(p)
}

func (l *lines) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// await waits until n lines have been written, or fails the test.
func (l *lines) await(t *testing.T, n int, done <-chan runResult) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for l.count() < n {
		select {
		case r := <-done:
			t.Fatalf("the run ended after %d lines, before %d: %v\n%s", l.count(), n, r.err, l)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d lines after 2 minutes, waiting for %d:\n%s", l.count(), n, l)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type runResult struct {
	run *results.Run
	err error
}

const evidenceInterval = 250 * time.Millisecond

// startRun loads tpcb (scale 1) into url and starts a run of it with the
// collectors kinds, long enough for any test: the test ends it by closing
// the returned stop.
func startRun(t *testing.T, url string, kinds ...string) (*lines, chan<- struct{}, <-chan runResult) {
	t.Helper()
	ctx := context.Background()
	if err := runner.Init(ctx, runner.InitConfig{Target: target(t, url), Workload: testdb.Workload(t, "tpcb", workload.CmdInit, "--scale=1"),
		Seed: 1, Loaders: 2}); err != nil {
		t.Fatal(err)
	}
	out, warn := &lines{}, &lines{}
	m := map[string]bool{}
	for _, k := range kinds {
		m[k] = true
	}
	cfg := runner.Config{
		Target:      target(t, url),
		Workload:    testdb.Workload(t, "tpcb", workload.CmdRun),
		Command:     []string{"dbharness", "run", "tpcb", "--db=" + url},
		Engine:      loadgen.Config{Clients: 2, Duration: 10 * time.Minute, MaxTries: 1, Interval: evidenceInterval, Seed: 7},
		Progress:    evidenceInterval,
		Percentiles: results.NormalizePercentiles(nil),
		Collect:     m,
		Results:     filepath.Join(t.TempDir(), "results.db"),
		Out:         out,
		Warn:        warn,
	}
	stop := make(chan struct{})
	done := make(chan runResult, 1)
	go func() {
		run, err := runner.Run(ctx, cfg, stop)
		done <- runResult{run, err}
	}()
	t.Cleanup(func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		if t.Failed() {
			t.Logf("warnings:\n%s", warn)
		}
	})
	return out, stop, done
}

// restartDuringRun restarts the server of url (down, then up) in the middle
// of a run with the server and wait collectors, and checks that both came
// back, that the stretch they missed is recorded and named in the summary,
// and that the server's log bytes per transaction (headline, the counter
// key) are computed over the intervals the collector covered.
func restartDuringRun(t *testing.T, url string, down, up func(), headline, key string) {
	out, stop, done := startRun(t, url, evidence.KindServer, evidence.KindWaits)
	out.await(t, 2+8, done) // the first line, the header and 2 s of intervals
	down()
	time.Sleep(time.Second)
	up()
	// The collectors back off to 4 s between restarts: give them 10 s.
	out.await(t, out.count()+int(10*time.Second/evidenceInterval), done)
	close(stop)
	var res runResult
	select {
	case res = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("the run did not end within 2 minutes of being stopped:\n%s", out)
	}
	if res.err != nil {
		t.Fatalf("%v\n%s", res.err, out)
	}
	run, text := res.run, out.String()

	s := run.Collect.Get(evidence.KindServer)
	if s == nil {
		t.Fatalf("no server series:\n%s", text)
	}
	var seqs, wseqs []int
	for _, p := range s.Intervals {
		seqs = append(seqs, p.Seq)
	}
	for _, iv := range run.Waits.Intervals {
		wseqs = append(wseqs, iv.Seq)
	}
	cameBack(t, "server collector", seqs, s.Gaps)
	cameBack(t, "wait profile", wseqs, run.Waits.Gaps)

	cov := run.SeriesCoverage(s)
	if cov.Complete() || cov.Seconds >= cov.Of {
		t.Fatalf("server coverage %+v with gaps %+v", cov, s.Gaps)
	}
	named := fmt.Sprintf("server evidence covers %.1f s of %.1f s: its connection was lost from %.1f s to %.1f s",
		cov.Seconds, cov.Of, cov.Uncovered[0].From, cov.Uncovered[0].To)
	if !strings.Contains(text, named) {
		t.Errorf("the summary does not say %q:\n%s", named, text)
	}

	// The figure per transaction is the covered points' own increases over
	// the transactions of the intervals they span.
	count := map[int]int64{}
	for _, iv := range run.Intervals {
		count[iv.Seq] = iv.Count
	}
	var logBytes float64
	var tx int64
	for _, p := range s.Intervals {
		if p.Phase == "warmup" {
			continue
		}
		logBytes += p.Rates[key] * p.Seconds
		for k := p.Seq - max(p.Span, 1) + 1; k <= p.Seq; k++ {
			tx += count[k]
		}
	}
	if tx != cov.Transactions || tx == 0 || tx > run.Summary.Transactions {
		t.Errorf("covered transactions %d, the points span %d of %d", cov.Transactions, tx, run.Summary.Transactions)
	}
	total := s.Totals[key]
	if total <= 0 || math.Abs(logBytes-total) > 0.01*total+1 {
		t.Errorf("%s: total %g, the covered points' increases add up to %g", key, total, logBytes)
	}
	m := regexp.MustCompile(headline + ` ([0-9.]+) (B|kB|MB)/transaction`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no %s per transaction in the summary:\n%s", headline, text)
	}
	// As shown: bytes to the unit, kB and MB to a tenth.
	shown, _ := strconv.ParseFloat(m[1], 64)
	unit, within := map[string]float64{"B": 1, "kB": 1 << 10, "MB": 1 << 20}[m[2]], 0.5
	if m[2] != "B" {
		within = 0.05
	}
	if want := total / float64(tx); math.Abs(shown-want/unit) > within+1e-9 {
		t.Errorf("the summary shows %s %s %s/transaction, the covered points give %g bytes over %d transactions (%.1f)",
			headline, m[1], m[2], total, tx, want)
	}
}

// cameBack checks that a collector's points (at seqs) resumed after a gap
// that none of them spans.
func cameBack(t *testing.T, who string, seqs []int, gaps []evidence.Gap) {
	t.Helper()
	if len(gaps) == 0 {
		t.Errorf("%s: no gap recorded; points at %v", who, seqs)
		return
	}
	g := gaps[0]
	if g.LastSeq < g.FirstSeq || g.Reason == "" || g.To <= g.From {
		t.Errorf("%s: gap %+v", who, g)
	}
	before, after := 0, 0
	for _, k := range seqs {
		switch {
		case k < g.FirstSeq:
			before++
		case k > g.LastSeq:
			after++
		default:
			t.Errorf("%s: a point at %d inside gap %+v", who, k, g)
		}
	}
	if before == 0 || after == 0 {
		t.Errorf("%s: %d points before the gap %+v and %d after it; want both (all at %v)", who, before, g, after, seqs)
	}
}

func TestServerEvidenceComesBackAfterPostgresRestarts(t *testing.T) {
	pg := testdb.PrivatePostgres(t)
	restartDuringRun(t, pg.URL(), pg.Stop, pg.Start, "WAL", "pg_stat_wal.wal_bytes")
}

func TestServerEvidenceComesBackAfterMariaDBRestarts(t *testing.T) {
	my := testdb.PrivateMariaDB(t)
	restartDuringRun(t, my.URL(), my.Stop, my.Start, "redo log", "Innodb_os_log_written")
}

func TestAPlanCheckThatCannotConnectAfterTheRunSaysItFailed(t *testing.T) {
	pg := testdb.PrivatePostgres(t)
	out, stop, done := startRun(t, pg.URL(), evidence.KindServer, collect.KindPlans)
	out.await(t, 2+4, done)
	pg.Stop() // for good
	out.await(t, out.count()+4, done)
	close(stop)
	res := <-done
	if res.err != nil {
		t.Fatalf("%v\n%s", res.err, out)
	}
	run, text := res.run, out.String()
	if len(run.Plans) == 0 {
		t.Fatalf("no plans checked:\n%s", text)
	}
	for _, p := range run.Plans {
		if !strings.HasPrefix(p.Error, results.AfterRun+"could not connect") {
			t.Errorf("%s: error %q", p.Statement, p.Error)
		}
	}
	if strings.Contains(text, "unchanged during the run") || !strings.Contains(text, "the check after the run failed (could not connect") {
		t.Errorf("the summary does not say the check after the run failed:\n%s", text)
	}
	js, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"error":"after the run: could not connect`) {
		t.Errorf("the JSON does not say the check after the run failed:\n%s", js)
	}
	var html bytes.Buffer
	if err := report.RunHTML(&html, run, report.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), "not checked (could not connect") {
		t.Errorf("the report does not say the check after the run failed")
	}
	// The server collector never came back: its gap runs to the end.
	s := run.Collect.Get(evidence.KindServer)
	if cov := run.SeriesCoverage(s); len(cov.Uncovered) == 0 || cov.Uncovered[len(cov.Uncovered)-1].To != run.Intervals[len(run.Intervals)-1].T {
		t.Errorf("coverage %+v, gaps %+v", cov, s.Gaps)
	}
}
