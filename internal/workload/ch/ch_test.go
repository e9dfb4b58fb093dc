package ch_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
	"github.com/dbharness/dbharness/internal/workload/ch"
	"github.com/dbharness/dbharness/internal/workload/tpcc"
)

func env(d db.DB, seed uint64) *workload.Env {
	return &workload.Env{DB: d, Seed: seed, Loaders: 2, Progress: workload.NopProgress{}}
}

// small is 1 warehouse of 1,000 items and 30 customers and orders per
// district (9 undelivered): the queries meet every table, quickly, even
// on SQLite under -race.
func small() *ch.CH {
	c := ch.New()
	c.TP.Population = tpcc.Population{Items: 1000, Customers: 30, Undelivered: 9}
	return c
}

// setup readies c to run on d.
func setup(t *testing.T, d db.DB, c *ch.CH) {
	t.Helper()
	ctx := context.Background()
	conn, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := c.Setup(ctx, env(d, 3), conn); err != nil {
		t.Fatal(err)
	}
}

// checkAll runs check ch (tpcc's 11 conditions of clause 3.3.2 and ch's
// 2) and fails the test on any that fails.
func checkAll(t *testing.T, d db.DB, when string) {
	t.Helper()
	res, err := ch.New().Check(context.Background(), env(d, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 13 {
		t.Fatalf("%s: %d conditions checked, want 13 (tpcc's 11 and ch's 2)", when, len(res))
	}
	for _, r := range res {
		if !r.Pass {
			t.Errorf("%s: condition %s fails: %s", when, r.Name, r.Detail)
		}
	}
}

func TestCHOnEveryEngine(t *testing.T) {
	t.Parallel() // each engine on a database of its own
	for _, e := range testdb.Engines(t, "dbh_ch_it") {
		t.Run(e.Name, func(t *testing.T) {
			d := testdb.Open(t, e.URL)
			ctx := context.Background()
			if err := small().Init(ctx, env(d, 1)); err != nil {
				t.Fatal(err)
			}
			t.Run("init loads SUPPLIER, NATION and REGION beside tpcc's tables, and check ch holds", func(t *testing.T) {
				for table, want := range map[string]int64{"supplier": ch.Suppliers, "nation": ch.Nations, "region": ch.Regions, "warehouse": 1} {
					if n := testdb.QueryInt64(t, d, "SELECT count(*) FROM "+table); n != want {
						t.Errorf("%s has %d rows, want %d", table, n, want)
					}
				}
				checkAll(t, d, "after init")
			})
			t.Run("the dialect's year and character code map each customer to its nation", func(t *testing.T) {
				caps := d.Caps()
				year := testdb.QueryInt64(t, d, ch.Dialect(caps, "SELECT min({{year o_entry_d}}) FROM orders"))
				if now := int64(time.Now().UTC().Year()); year < now-1 || year > now {
					t.Errorf("the orders' year is %d, want this year, %d (the loader dates them today)", year, now)
				}
				// Every C_STATE starts with one of the 62 characters whose
				// codes are the nation keys.
				mapped := testdb.QueryInt64(t, d, ch.Dialect(caps, "SELECT count(*) FROM customer, nation WHERE n_nationkey = {{code c_state}}"))
				if all := testdb.QueryInt64(t, d, "SELECT count(*) FROM customer"); mapped != all {
					t.Errorf("%d of %d customers have a nation", mapped, all)
				}
			})
			t.Run("each of the 22 queries runs", func(t *testing.T) {
				c := small()
				setup(t, d, c)
				if _, err := c.Clients(0); err != nil {
					t.Fatal(err)
				}
				conn, err := d.Connect(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				w, err := c.NewWorker(ctx, conn, 0)
				if err != nil {
					t.Fatal(err)
				}
				ops := c.Ops()
				ran := map[string]bool{}
				for i := 0; i < ch.QueryCount; i++ {
					op := w.Next()
					if err := w.Do(ctx, op); err != nil {
						t.Errorf("%s: %v", ops[op], err)
					}
					ran[ops[op]] = true
				}
				if len(ran) != ch.QueryCount {
					t.Errorf("a stream's 22 queries were %d different ones: %v", len(ran), ran)
				}
				// Q1 (order lines by line number) has a row for each of
				// the 15 line numbers that a loaded order may have.
				if n := testdb.QueryInt64(t, d, "SELECT count(*) FROM ("+ch.Queries(d.Caps())[0]+") q1"); n != 15 {
					t.Errorf("q1 returned %d rows, want 15 (line numbers 1 to 15)", n)
				}
			})
			t.Run("two terminals and a query stream run together and keep tpcc's conditions", func(t *testing.T) {
				c := small()
				clients, err := c.Clients(2)
				if err != nil || clients != 3 {
					t.Fatalf("2 terminals and 1 query stream are %d clients (%v), want 3", clients, err)
				}
				setup(t, d, c)
				const perClient = 8
				cfg := loadgen.Config{Clients: clients, Transactions: perClient, MaxTries: c.DefaultMaxTries(),
					Interval: 200 * time.Millisecond, Seed: 5}
				if err := loadgen.ResolveDriver(d, &cfg); err != nil {
					t.Fatal(err)
				}
				// Fixed work: every client runs 8 transactions, the stream
				// Q1 to Q8 once each (SQLite runs the 22 slowly under -race;
				// the test above runs them all).
				res, err := loadgen.Run(ctx, d, c, cfg, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				counts := map[string]int64{}
				var tp, queries int64
				for _, op := range res.Ops {
					counts[op.Name] = op.Hist.TotalCount()
					if strings.HasPrefix(op.Name, "q") {
						queries += op.Hist.TotalCount()
					} else {
						tp += op.Hist.TotalCount()
					}
					if op.Errors > 0 {
						t.Errorf("%s: %d errors: %v %v", op.Name, op.Errors, res.ErrorClasses, res.ErrorSamples)
					}
				}
				if tp != 2*perClient || counts["new_order"] == 0 {
					t.Errorf("the terminals ran %d transactions, %d New-Orders; want %d, New-Orders among them", tp, counts["new_order"], 2*perClient)
				}
				for q := 1; q <= ch.QueryCount; q++ {
					want := int64(0)
					if q <= int(perClient) {
						want = 1
					}
					if counts[ch.QueryName(q)] != want {
						t.Errorf("the stream ran %s %d times, want %d", ch.QueryName(q), counts[ch.QueryName(q)], want)
					}
				}
				if queries != perClient {
					t.Errorf("the stream ran %d queries, want %d", queries, perClient)
				}
				checkAll(t, d, "after the mixed run")
			})
		})
	}
}

func TestTheLoaderIsDeterministicAndKeysTheSuppliersAsTheQueriesJoinThem(t *testing.T) {
	t.Parallel()
	a, b, other := ch.LoadTables(7), ch.LoadTables(7), ch.LoadTables(8)
	rows := func(tables []workload.Table) map[string]string {
		out := map[string]string{}
		for _, tb := range tables {
			var sb strings.Builder
			for i := 0; i < tb.Batches; i++ {
				for _, r := range tb.Batch(i, nil) {
					fmt.Fprintln(&sb, r...)
				}
			}
			out[tb.Name] = sb.String()
		}
		return out
	}
	ra, rb, ro := rows(a), rows(b), rows(other)
	for _, name := range ch.Tables {
		if ra[name] != rb[name] {
			t.Errorf("%s: two loads with seed 7 differ", name)
		}
		if ra[name] == ro[name] {
			t.Errorf("%s: seeds 7 and 8 load the same rows", name)
		}
	}
	for _, tb := range a {
		var n int64
		keys := map[any]bool{}
		for i := 0; i < tb.Batches; i++ {
			for _, r := range tb.Batch(i, nil) {
				n++
				keys[r[0]] = true
			}
		}
		if n != tb.Rows || int64(len(keys)) != n {
			t.Errorf("%s: %d rows with %d keys, want %d of each", tb.Name, n, len(keys), tb.Rows)
		}
		// mod(s_w_id * s_i_id, 10000) is 0 to 9,999: every stock row has
		// a supplier.
		if tb.Name == "supplier" && (!keys[0] || !keys[9999] || keys[10000]) {
			t.Errorf("supplier keys are not 0 to 9,999")
		}
		// The nation keys are the codes of the characters an a-string
		// (C_STATE) starts with.
		if tb.Name == "nation" && (!keys[int('0')] || !keys[int('Z')] || !keys[int('z')] || keys[int('0')-1]) {
			t.Errorf("nation keys are not the codes of 0-9, A-Z and a-z")
		}
	}
}

func TestAfterRunReportsNOPMOfTheTerminalsBesideTheStreamsQueriesPerHour(t *testing.T) {
	t.Parallel()
	c := ch.New()
	if _, err := c.Clients(2); err != nil {
		t.Fatal(err)
	}
	m, err := c.AfterRun(context.Background(), nil, nil, workload.Totals{Seconds: 120,
		Commits: map[string]int64{"new_order": 90, "payment": 86, "order_status": 8, "delivery": 8, "stock_level": 8, "q1": 3, "q22": 1}})
	if err != nil {
		t.Fatal(err)
	}
	// 90 New-Orders and 200 TPC-C transactions in 2 minutes; 4 queries in
	// 1/30 of an hour.
	if m["nopm"] != 45 || m["tpm"] != 100 || m["qph"] != 120 {
		t.Errorf("nopm %v, tpm %v, qph %v; want 45, 100 (the queries not counted) and 120", m["nopm"], m["tpm"], m["qph"])
	}
	if c.HeadlineMetric() != "nopm" {
		t.Errorf("headline %q with terminals, want nopm", c.HeadlineMetric())
	}
	tpOnly := ch.New()
	tpOnly.QueryStreams = 0
	if _, err := tpOnly.Clients(2); err != nil {
		t.Fatal(err)
	}
	m, err = tpOnly.AfterRun(context.Background(), nil, nil, workload.Totals{Seconds: 60, Commits: map[string]int64{"new_order": 10}})
	if _, ok := m["qph"]; err != nil || ok || m["nopm"] != 10 {
		t.Errorf("without query streams: %v (%v), want nopm 10 and no qph", m, err)
	}
	streams := ch.New()
	if _, err := streams.Clients(0); err != nil {
		t.Fatal(err)
	}
	if streams.HeadlineMetric() != "qph" {
		t.Errorf("headline %q without terminals, want qph", streams.HeadlineMetric())
	}
}

func TestClientsAreTheTerminalsThenTheQueryStreams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		terminals, streams, want int
		err                      string
	}{
		{2, 1, 3, ""},
		{0, 3, 3, ""},
		{4, 0, 4, ""},
		{0, 0, 0, "ch has nothing to run with 0 terminals and 0 query streams"},
		{-1, 1, 0, "--terminals -1 is negative"},
		{1, -2, 0, "--query-streams -2 is negative"},
	} {
		c := ch.New()
		c.QueryStreams = tc.streams
		n, err := c.Clients(tc.terminals)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%d terminals, %d streams: error %v, want one starting %q", tc.terminals, tc.streams, err, tc.err)
			}
			continue
		}
		if err != nil || n != tc.want {
			t.Errorf("%d terminals, %d streams: %d clients (%v), want %d", tc.terminals, tc.streams, n, err, tc.want)
		}
	}
}
