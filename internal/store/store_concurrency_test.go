package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
)

// writerEnv, set to a store's location, makes the test binary a writer
// process (TestMain): it saves its runs there, as a harness does, and
// exits. writerIDEnv numbers it.
const (
	writerEnv   = "DBHARNESS_TEST_STORE_WRITER"
	writerIDEnv = "DBHARNESS_TEST_STORE_WRITER_ID"
)

const (
	// Each writer saves writerRuns runs of writerIntervals intervals, with
	// an evidence point per interval; its even runs end completed, its odd
	// runs are left running (as by a killed harness).
	writerRuns      = 5
	writerIntervals = 12
	// The goroutines of one writer process share its store, as a run's
	// interval tick and its collectors do.
	writerGoroutines = 2
	// sharedRunID is the id every writer first gives each of its runs, so
	// that Create must find each run an id of its own.
	sharedRunID = "20261124-120000-0000"
)

// code identifies interval k of run i of writer w in the rows it writes.
func code(w, i, k int) int64 { return int64(w*10000 + i*100 + k) }

// writeRuns saves writer w's runs in s.
func writeRuns(s *Store, w int) error {
	host, _ := os.Hostname()
	for i := range writerRuns {
		tag := fmt.Sprintf("w%d-r%d", w, i)
		r := &results.Run{SchemaVersion: results.SchemaVersion, RunID: sharedRunID, Status: results.StatusRunning, Workload: tag,
			Engine: results.EngineInfo{Engine: "test"}, StartTime: time.Now(), Config: results.Config{Clients: w*100 + i},
			Intervals: []results.Interval{}, ErrorClasses: map[string]int64{}}
		r.Host.Hostname = host
		if err := s.Create(r); err != nil {
			return err
		}
		for k := range writerIntervals {
			iv := results.Interval{Seq: k, Phase: "measure", T: float64(k + 1), Seconds: 1, Count: code(w, i, k)}
			if err := s.AddInterval(r.RunID, &iv, map[string]string{"op": tag}); err != nil {
				return err
			}
			pt := evidence.Point{Seq: k, Phase: "measure", T: float64(k + 1), Seconds: 1, Rates: map[string]float64{"code": float64(code(w, i, k))}}
			if err := s.AddEvidence(r.RunID, "os", k, pt); err != nil {
				return err
			}
		}
		if i%2 == 0 {
			r.Status, r.Summary.TPS = results.StatusCompleted, float64(w*100+i)
			if err := s.Save(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeConcurrently runs writers first, first+1, ... on one store at loc,
// each in a goroutine.
func writeConcurrently(loc string, first, n int) error {
	s, err := Open(loc)
	if err != nil {
		return err
	}
	defer s.Close()
	errs := make(chan error, n)
	for w := first; w < first+n; w++ {
		go func() { errs <- writeRuns(s, w) }()
	}
	for range n {
		if e := <-errs; e != nil && err == nil {
			err = e
		}
	}
	return err
}

// writerProcess is the body of a writer process: writerGoroutines writers
// from writerIDEnv times writerGoroutines on.
func writerProcess(loc string) int {
	id, err := strconv.Atoi(os.Getenv(writerIDEnv))
	if err == nil {
		err = writeConcurrently(loc, id*writerGoroutines, writerGoroutines)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func TestConcurrentWritersNeitherLoseNorMixUpRows(t *testing.T) {
	eachStore(t, testConcurrentWriters)
}

// testConcurrentWriters has several processes, each of several goroutines,
// and several goroutines of this process on one store of their own, save
// runs at once under one id, then reads every run back: each has an id
// of its own, its row, all its intervals and evidence, and none of
// another's.
func testConcurrentWriters(t *testing.T, loc string) {
	const processes, local = 3, 4
	writers := processes*writerGoroutines + local
	var wg sync.WaitGroup
	errs := make([]error, processes+1)
	outs := make([]bytes.Buffer, processes)
	for p := range processes {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), writerEnv+"="+loc, writerIDEnv+"="+strconv.Itoa(p))
		cmd.Stdout, cmd.Stderr = &outs[p], &outs[p]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { errs[p] = cmd.Wait() })
	}
	wg.Go(func() { errs[processes] = writeConcurrently(loc, processes*writerGoroutines, local) })
	wg.Wait()
	for p, err := range errs {
		if err != nil {
			out := ""
			if p < processes {
				out = outs[p].String()
			}
			t.Fatalf("writer %d: %v\n%s", p, err, out)
		}
	}

	if !IsServer(loc) {
		onlyStoreFiles(t, loc)
	}
	ctx := context.Background()
	s := openStoreT(t, loc)
	rows, err := s.List(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != writers*writerRuns {
		t.Fatalf("%d runs in the store, want %d", len(rows), writers*writerRuns)
	}
	seen := map[string]bool{}
	evidenceRows := 0
	for _, row := range rows {
		var w, i int
		if _, err := fmt.Sscanf(row.Workload, "w%d-r%d", &w, &i); err != nil {
			t.Fatalf("run %s: workload %q", row.ID, row.Workload)
		}
		if seen[row.Workload] {
			t.Fatalf("run %s of writer %d is in the store twice", row.Workload, w)
		}
		seen[row.Workload] = true
		if row.Clients != w*100+i {
			t.Errorf("run %s (%s) has the row of another run: clients %d", row.ID, row.Workload, row.Clients)
		}
		r, err := s.Get(ctx, row.ID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Workload != row.Workload || len(r.Intervals) != writerIntervals {
			t.Fatalf("run %s (%s): workload %s, %d intervals, want %d", row.ID, row.Workload, r.Workload, len(r.Intervals), writerIntervals)
		}
		for k, iv := range r.Intervals {
			if iv.Seq != k || iv.Count != code(w, i, k) {
				t.Errorf("run %s (%s): interval %d is seq %d of code %d, want %d", row.ID, row.Workload, k, iv.Seq, iv.Count, code(w, i, k))
			}
		}
		hists, err := s.IntervalHists(ctx, row.ID)
		if err != nil {
			t.Fatal(err)
		}
		for k := range writerIntervals {
			if hists[k]["op"] != row.Workload {
				t.Errorf("run %s (%s): interval %d holds the histograms of %q", row.ID, row.Workload, k, hists[k]["op"])
			}
		}
		var n int
		if err := s.queryRow(ctx, `SELECT count(*) FROM evidence WHERE run_id = ?`, row.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		evidenceRows += n
		if i%2 == 0 {
			if r.Status != results.StatusCompleted || r.Summary.TPS != float64(w*100+i) || n != 0 {
				t.Errorf("finished run %s (%s): status %s, tps %g, %d evidence rows left", row.ID, row.Workload, r.Status, r.Summary.TPS, n)
			}
			continue
		}
		os := r.Collect.Get("os")
		if os == nil || len(os.Intervals) != writerIntervals {
			t.Fatalf("unfinished run %s (%s): evidence %+v", row.ID, row.Workload, os)
		}
		for k, p := range os.Intervals {
			if p.Seq != k || p.Rates["code"] != float64(code(w, i, k)) {
				t.Errorf("run %s (%s): evidence point %d is %+v, want code %d", row.ID, row.Workload, k, p, code(w, i, k))
			}
		}
	}
	if want := writers * (writerRuns / 2) * writerIntervals; evidenceRows != want {
		t.Errorf("%d evidence rows, want %d", evidenceRows, want)
	}
}

func TestARunNeverTakesTheRowOfAnotherUnderTheSameID(t *testing.T) {
	eachStore(t, func(t *testing.T, loc string) {
		s := openStoreT(t, loc)
		ctx := context.Background()
		first := sampleRun()
		if err := s.Create(first); err != nil {
			t.Fatal(err)
		}
		second := sampleRun()
		second.Workload = "second"
		if err := s.Create(second); err != nil {
			t.Fatal(err)
		}
		if second.RunID == first.RunID {
			t.Fatalf("the second run kept the first's id %s", first.RunID)
		}
		for _, want := range []*results.Run{first, second} {
			got, err := s.Get(ctx, want.RunID)
			if err != nil || got.Workload != want.Workload {
				t.Fatalf("run %s: %+v, %v", want.RunID, got, err)
			}
		}
	})
}

func TestASweepNeverTakesTheRowOfAnotherUnderTheSameID(t *testing.T) {
	eachStore(t, func(t *testing.T, loc string) {
		s := openStoreT(t, loc)
		ctx := context.Background()
		id := results.NewSweepID(time.Now())
		first := &results.Sweep{SchemaVersion: results.SweepSchemaVersion, SweepID: id, Workload: "first", Status: results.StatusRunning, StartTime: time.Now()}
		if err := s.CreateSweep(first); err != nil {
			t.Fatal(err)
		}
		second := &results.Sweep{SchemaVersion: results.SweepSchemaVersion, SweepID: id, Workload: "second", Status: results.StatusRunning, StartTime: time.Now()}
		if err := s.CreateSweep(second); err != nil {
			t.Fatal(err)
		}
		if second.SweepID == id || first.SweepID != id {
			t.Fatalf("ids %s and %s; the second sweep should have drawn another than %s", first.SweepID, second.SweepID, id)
		}
		for _, want := range []*results.Sweep{first, second} {
			got, err := s.GetSweep(ctx, want.SweepID)
			if err != nil || got.Workload != want.Workload || got.SweepID != want.SweepID {
				t.Fatalf("sweep %s: %+v, %v", want.SweepID, got, err)
			}
		}
		// A sweep that goes on is saved under its own id again.
		first.Status = results.StatusCompleted
		if err := s.SaveSweep(first); err != nil {
			t.Fatal(err)
		}
		if got, err := s.GetSweep(ctx, id); err != nil || got.Status != results.StatusCompleted || got.Workload != "first" {
			t.Fatalf("sweep %s after its save: %+v, %v", id, got, err)
		}
	})
}

// BenchmarkStoreWrites is what one interval costs a run in each kind of
// store: its row with a realistic histogram, written as the run's writer
// goroutine writes it; "parallel" has GOMAXPROCS writers of their own runs
// share the store (bench/store-writes.sh).
func BenchmarkStoreWrites(b *testing.B) {
	for _, kind := range []string{"sqlite", "postgres"} {
		for _, parallel := range []bool{false, true} {
			name := kind
			if parallel {
				name += "/parallel"
			}
			b.Run(name, func(b *testing.B) {
				loc := filepath.Join(b.TempDir(), "r.db")
				if kind == "postgres" {
					loc = postgresStore(b)
				}
				s := openStoreT(b, loc)
				write := func(pb func() bool) {
					r := sampleRun()
					if err := s.Create(r); err != nil {
						b.Error(err)
						return
					}
					iv := r.Intervals[0]
					hists := map[string]string{"tpcb_like": r.Ops[0].Histogram}
					for i := 0; pb(); i++ {
						iv.Seq = i
						if err := s.AddInterval(r.RunID, &iv, hists); err != nil {
							b.Error(err)
							return
						}
					}
				}
				b.ResetTimer()
				if parallel {
					b.RunParallel(func(pb *testing.PB) { write(pb.Next) })
					return
				}
				n := 0
				write(func() bool { n++; return n <= b.N })
			})
		}
	}
}
