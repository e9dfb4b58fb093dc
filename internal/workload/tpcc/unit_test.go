package tpcc

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/datagen"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
)

func TestLastNamesAreBuiltFromTheSyllables(t *testing.T) {
	for n, want := range map[int]string{
		0:   "BARBARBAR",
		371: "PRICALLYOUGHT", // the example of clause 4.3.2.3
		999: "EINGEINGEING",
		40:  "BARPRESBAR",
	} {
		if got := LastName(n); got != want {
			t.Errorf("LastName(%d) = %s, want %s", n, got, want)
		}
		if got := string(appendLastName(nil, n)); got != want {
			t.Errorf("appendLastName(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestRunConstantsFollowClause2_1_6_1(t *testing.T) {
	for seed := uint64(0); seed < 500; seed++ {
		cLast, cID, cItem := runConstants(datagen.NewRand(seed, 0xc0c0))
		if !ValidRunConstant(cLast) {
			t.Fatalf("seed %d: C_RUN %d against C_LOAD %d breaks clause 2.1.6.1", seed, cLast, cLoadLast)
		}
		if cLast < 0 || cLast > 255 || cID < 0 || cID > 1023 || cItem < 0 || cItem > 8191 {
			t.Fatalf("seed %d: constants out of range: %d %d %d", seed, cLast, cID, cItem)
		}
	}
	for _, c := range []int64{cLoadLast, cLoadLast + 96, cLoadLast - 112, cLoadLast + 64, cLoadLast + 120} {
		if ValidRunConstant(c) {
			t.Errorf("ValidRunConstant(%d) is true", c)
		}
	}
}

func TestNURandIsNonUniformAndInRange(t *testing.T) {
	// The C_LAST draw of the loader and of a run: values stay in 0..999
	// and some names are far more frequent than uniform would make them.
	r := datagen.NewRand(1, 2)
	nu := datagen.Must(datagen.NewNURand(255, 0, 999, cLoadLast))
	counts := make([]int, 1000)
	const n = 200_000
	for i := 0; i < n; i++ {
		v := nu.Int64(r)
		if v < 0 || v > 999 {
			t.Fatalf("NURand(255, 0, 999) gave %d", v)
		}
		counts[v]++
	}
	top := 0
	for _, c := range counts {
		top = max(top, c)
	}
	if uniform := n / 1000; top < 3*uniform {
		t.Errorf("most frequent C_LAST drawn %d times, uniform would be %d: not NURand's skew", top, uniform)
	}
	// C_ID: NURand(1023, 1, 3000).
	nc := datagen.Must(datagen.NewNURand(1023, 1, 3000, 259))
	for i := 0; i < 10_000; i++ {
		if v := nc.Int64(r); v < 1 || v > 3000 {
			t.Fatalf("NURand(1023, 1, 3000) gave %d", v)
		}
	}
}

func TestTheDeckDealsTheExactMixEveryHundredCards(t *testing.T) {
	d := NewDeck(mix[:])
	r := datagen.NewRand(3)
	var prev []int
	for round := 0; round < 5; round++ {
		var got [5]int
		var seq []int
		for i := 0; i < 100; i++ {
			op := d.Deal(r)
			got[op]++
			seq = append(seq, op)
		}
		if got != mix {
			t.Fatalf("round %d dealt %v, want %v (clause 5.2.3)", round, got, mix)
		}
		if prev != nil && equalInts(prev, seq) {
			t.Fatal("two rounds were dealt in the same order: the deck is not reshuffled")
		}
		prev = seq
	}
}

func equalInts(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestThinkTimesAreNegativeExponentialTruncatedAtTenMeans(t *testing.T) {
	mean := 12 * time.Second
	if got := ThinkTime(mean, 0); got != 10*mean {
		t.Errorf("r=0 gives %s, want the 10x cap %s", got, 10*mean)
	}
	if got := ThinkTime(mean, 1e-300); got != 10*mean {
		t.Errorf("a tiny r gives %s, want the 10x cap", got)
	}
	if got := ThinkTime(mean, math.Exp(-1)); got.Round(time.Millisecond) != mean {
		t.Errorf("r=1/e gives %s, want the mean", got)
	}
	r := datagen.NewRand(5)
	w := &TPCC{}
	var sum time.Duration
	const n = 100_000
	for i := 0; i < n; i++ {
		sum += w.Think(NewOrder, r)
	}
	avg := sum / n
	// The truncation at 10 means lowers the mean by e^-10, negligible.
	if avg < 11700*time.Millisecond || avg > 12300*time.Millisecond {
		t.Errorf("mean New-Order think time %s, want about 12s (clause 5.2.5.7)", avg)
	}
	if w.Keying(NewOrder) != 18*time.Second || w.Keying(Payment) != 3*time.Second || w.Keying(StockLevel) != 2*time.Second {
		t.Errorf("keying times differ from clause 5.2.5.7")
	}
}

func TestTerminalMenuFollowsTheMix(t *testing.T) {
	r := datagen.NewRand(9)
	for _, tc := range []struct {
		w    *TPCC
		want []float64
	}{
		{&TPCC{}, []float64{45, 43, 4, 4, 4}},
		{&TPCC{RO: true}, []float64{50, 50}},
	} {
		counts := make([]int, len(tc.want))
		const n = 200_000
		for i := 0; i < n; i++ {
			counts[tc.w.PickOp(r)]++
		}
		for op, c := range counts {
			if pct := float64(c) * 100 / n; math.Abs(pct-tc.want[op]) > 0.5 {
				t.Errorf("%s: op %d picked %.2f%%, want %.0f%%", tc.w.Name(), op, pct, tc.want[op])
			}
		}
	}
}

func TestAfterRunDerivesNOPMTPMAndTPMC(t *testing.T) {
	w := &TPCC{}
	start := time.Unix(1000, 0)
	end := start.Add(30 * time.Second)
	w.rb.add(start.Add(-time.Second)) // in the warm-up: not counted
	w.rb.add(start.Add(time.Second))
	w.rb.add(start.Add(2 * time.Second))
	m, err := w.AfterRun(t.Context(), nil, nil, workload.Totals{
		Commits: map[string]int64{"new_order": 452, "payment": 430, "order_status": 40, "delivery": 40, "stock_level": 40},
		Seconds: 30, MeasureStart: start, End: end})
	if err != nil {
		t.Fatal(err)
	}
	// 30 s is half a minute: per minute is twice the counts.
	if m["tpmc"] != 904 || m["nopm"] != 900 || m["tpm"] != 2004 {
		t.Fatalf("metrics %v, want tpmc 904, nopm 900 (2 rollbacks out), tpm 2004", m)
	}
	ro, _ := (&TPCC{RO: true}).AfterRun(t.Context(), nil, nil, workload.Totals{
		Commits: map[string]int64{"order_status": 60, "stock_level": 60}, Seconds: 60})
	if _, has := ro["nopm"]; has || ro["tpm"] != 120 {
		t.Fatalf("tpcc-ro metrics %v, want tpm 120 and no nopm", ro)
	}
}

func TestLoaderBatchesAreDeterministicAndAgree(t *testing.T) {
	now := time.Unix(0, 0)
	a, b := loadTables(1, 2, now, Spec), loadTables(1, 2, now, Spec)
	for i := range a {
		for _, batch := range []int{0, a[i].Batches - 1} {
			ra, rb := a[i].Batch(batch, nil), b[i].Batch(batch, nil)
			if len(ra) != len(rb) {
				t.Fatalf("%s batch %d: %d rows then %d", a[i].Name, batch, len(ra), len(rb))
			}
			for k := range ra {
				for c := range ra[k] {
					if ra[k][c] != rb[k][c] {
						t.Fatalf("%s batch %d row %d col %d: %v then %v", a[i].Name, batch, k, c, ra[k][c], rb[k][c])
					}
				}
			}
		}
	}
	// ORDER's O_OL_CNT and the ORDER-LINE rows of the same district agree.
	var orders, lines *workload.Table
	for i := range a {
		switch a[i].Name {
		case "orders":
			orders = &a[i]
		case "order_line":
			lines = &a[i]
		}
	}
	sum := 0
	for _, r := range orders.Batch(13, nil) {
		sum += r[6].(int)
	}
	if n := len(lines.Batch(13, nil)); n != sum {
		t.Fatalf("district batch 13: sum(O_OL_CNT) %d but %d order lines", sum, n)
	}
}

func TestTheSpecPopulationHasTheClause4_3_3_1Totals(t *testing.T) {
	var wh, dist []any
	for _, tb := range loadTables(1, 1, time.Unix(0, 0), Spec) {
		switch tb.Name {
		case "warehouse":
			wh = tb.Batch(0, nil)[0]
		case "district":
			dist = tb.Batch(0, nil)[0]
		}
	}
	if wh[8] != money(initialWYTD*100) || dist[9] != money(initialDYTD*100) || dist[10] != initialDNextOID {
		t.Fatalf("W_YTD %v, D_YTD %v, D_NEXT_O_ID %v", wh[8], dist[9], dist[10])
	}
}

func TestAfterRunGivesHammerDBsFiguresFromThePhaseReadings(t *testing.T) {
	totals := workload.Totals{Commits: map[string]int64{"new_order": 452, "payment": 430, "order_status": 40, "delivery": 40, "stock_level": 40},
		Seconds: 30, MeasureStart: time.Unix(1000, 0), End: time.Unix(1030, 0)}
	read := phaseCounts{started: true, ended: true, nextOID: [2]int64{30_010, 30_460},
		server: [2]db.Counts{{"1": 600, "5": 400}, {"1": 1_300, "5": 800}}, database: [2]db.Counts{{"5": 500}, {"5": 1_500}},
		hasServer: true, hasDBXact: true}
	w := &TPCC{phase: read}
	m, err := w.AfterRun(t.Context(), nil, nil, totals)
	if err != nil {
		t.Fatal(err)
	}
	// Half a minute: twice the changes per minute.
	if m["hammerdb_nopm"] != 900 || m["hammerdb_tpm"] != 2200 || m["server_tpm"] != 2000 || m["nopm"] != 904 {
		t.Fatalf("metrics %v, want hammerdb_nopm 900, hammerdb_tpm 2200, server_tpm 2000 beside nopm 904", m)
	}

	// A database dropped during the run (key 1) and one created (key 9):
	// the first's counts leave, the second's count whole.
	dropped := read
	dropped.server = [2]db.Counts{{"1": 900, "5": 400}, {"5": 1_100, "9": 400}}
	if m, err := (&TPCC{phase: dropped}).AfterRun(t.Context(), nil, nil, totals); err != nil || m["hammerdb_tpm"] != 2200 {
		t.Fatalf("a database dropped and one created during the run: metrics %v, error %v; want hammerdb_tpm 2200", m, err)
	}

	// The run's own database's counters reset (key 5): the server's figure
	// cannot be known.
	reset := read
	reset.server = [2]db.Counts{{"1": 600, "5": 5_000}, {"1": 1_300, "5": 100}}
	m, err = (&TPCC{phase: reset}).AfterRun(t.Context(), nil, nil, totals)
	if _, has := m["hammerdb_tpm"]; has || err == nil || !strings.Contains(err.Error(), "hammerdb_tpm left out") || m["server_tpm"] != 2000 {
		t.Fatalf("a counter reset during the run: metrics %v, error %v; want hammerdb_tpm left out and said so", m, err)
	}

	// Another database's counters reset (key 1, pg_stat_reset there): the
	// server's figure keeps that database's 100 from the reset on, beside
	// this one's 400, and says so.
	other := read
	other.server = [2]db.Counts{{"1": 5_000, "5": 400}, {"1": 100, "5": 800}}
	m, err = (&TPCC{phase: other}).AfterRun(t.Context(), nil, nil, totals)
	if m["hammerdb_tpm"] != 1000 || err == nil || !strings.Contains(err.Error(), "hammerdb_tpm counts the transactions of 1 other database(s) only from when their statistics were reset") ||
		strings.Contains(err.Error(), "left out") || m["server_tpm"] != 2000 {
		t.Fatalf("another database's counters reset during the run: metrics %v, error %v; want hammerdb_tpm 1000 and a note", m, err)
	}

	// MySQL keeps no counters per database: a reset of the server's
	// leaves the figure out.
	mysqlReset := read
	mysqlReset.hasDBXact = false
	mysqlReset.server = [2]db.Counts{{"Com_commit": 5_000}, {"Com_commit": 100}}
	if m, err := (&TPCC{phase: mysqlReset}).AfterRun(t.Context(), nil, nil, totals); err == nil || !strings.Contains(err.Error(), "hammerdb_tpm left out") {
		t.Fatalf("a server-wide counter reset without per-database counters: metrics %v, error %v; want hammerdb_tpm left out", m, err)
	}

	noDB := read
	noDB.hasDBXact = false // MySQL counts transactions server-wide only
	m, _ = (&TPCC{phase: noDB}).AfterRun(t.Context(), nil, nil, totals)
	if _, has := m["server_tpm"]; has || m["hammerdb_tpm"] != 2200 {
		t.Fatalf("without per-database counters: %v", m)
	}

	unended := read
	unended.ended = false // the end was never read
	m, _ = (&TPCC{phase: unended}).AfterRun(t.Context(), nil, nil, totals)
	if _, has := m["hammerdb_nopm"]; has || m["nopm"] != 904 {
		t.Fatalf("without the end reading: %v", m)
	}

	m, _ = (&TPCC{RO: true, phase: read}).AfterRun(t.Context(), nil, nil, workload.Totals{
		Commits: map[string]int64{"order_status": 60, "stock_level": 60}, Seconds: 60})
	if _, has := m["hammerdb_nopm"]; has || m["hammerdb_tpm"] != 1100 {
		t.Fatalf("tpcc-ro: %v, want hammerdb_tpm and no hammerdb_nopm", m)
	}
}

func TestModeMustBeServerOrClient(t *testing.T) {
	for mode, ok := range map[string]bool{"server": true, "client": true, "": false, "proc": false} {
		err := (&TPCC{Mode: mode}).Validate(workload.CmdRun)
		if (err == nil) != ok {
			t.Errorf("--mode %q: %v", mode, err)
		}
		if err != nil && !strings.Contains(err.Error(), "use server") {
			t.Errorf("--mode %q: %v does not say what to use", mode, err)
		}
	}
}

func TestNewOrderLinesAreEncodedForEachRoutineLanguage(t *testing.T) {
	lines := []line{{item: 7, supply: 1, qty: 5}, {item: 1001, supply: 2, qty: 10}}
	pg, _ := pgLines(nil, nil, lines)
	if len(pg) != 3 || pg[0] != "{7,1001}" || pg[1] != "{1,2}" || pg[2] != "{5,10}" {
		t.Errorf("PL/pgSQL arguments %q", pg)
	}
	my, _ := myLines([]any{1}, nil, lines)
	if len(my) != 2 || my[1] != "[[7,1,5],[1001,2,10]]" {
		t.Errorf("MySQL arguments %q", my)
	}
}
