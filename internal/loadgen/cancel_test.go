package loadgen_test

import (
	"context"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
)

// sleeper runs one statement that outlasts the run by far.
type sleeper struct{ sql string }

func (s *sleeper) Setup(context.Context, *workload.Env, db.Conn) error { return nil }
func (s *sleeper) Ops() []string                                       { return []string{"sleep"} }
func (s *sleeper) NewWorker(_ context.Context, c db.Conn, _ int) (workload.Worker, error) {
	return &sleepWorker{c: c, sql: s.sql}, nil
}

type sleepWorker struct {
	c   db.Conn
	sql string
}

func (w *sleepWorker) Next() int                           { return 0 }
func (w *sleepWorker) Do(ctx context.Context, _ int) error { return w.c.Exec(ctx, w.sql) }

func TestAStatementThatOutlastsTheGraceIsCancelledOnTheServer(t *testing.T) {
	for _, e := range []struct{ name, url, sql string }{
		{"postgres", testdb.Postgres(t, "dbh_engine_cancel"), "SELECT pg_sleep(60)"},
		{"mysql", testdb.MySQL(t, "dbh_engine_cancel"), "SELECT SLEEP(60)"},
	} {
		t.Run(e.name, func(t *testing.T) {
			tg, _ := db.ParseURL(e.url)
			d, err := db.Open(tg)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			cfg := loadgen.Config{Clients: 2, Duration: 200 * time.Millisecond, MaxTries: 1, Interval: 100 * time.Millisecond,
				StopGrace: 500 * time.Millisecond}
			start := time.Now()
			res, err := loadgen.Run(context.Background(), d, &sleeper{e.sql}, cfg, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Uncancelled, the sleeps would hold the run for 60 s; the
			// bound leaves a busy machine room to cancel them.
			if took := time.Since(start); took > 30*time.Second {
				t.Fatalf("the run took %s to end; the sleeping statements were not cancelled", took)
			}
			if n := res.Ops[0].Hist.TotalCount(); n != 0 {
				t.Errorf("%d sleeps completed", n)
			}
		})
	}
}
