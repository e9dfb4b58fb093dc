package script

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
)

// driverScript uses what a client's state machine must carry from one
// command to the next: \set, \gset (with a prefix), \if/\else, \sleep and
// a transaction of several statements.
const driverScript = `\set r random(1, 1000)
SELECT :r * 2 AS dbl \gset
BEGIN;
\if :dbl > 1000
INSERT INTO log (c, r, big) VALUES (:client_id, :r, true);
\else
INSERT INTO log (c, r, big) VALUES (:client_id, :r, false);
\endif
SELECT count(*) AS n FROM log WHERE c = :client_id \gset p_
\sleep 1 ms
INSERT INTO log2 (c, n, r) VALUES (:client_id, :p_n, :r);
END;
`

// Every query mode gives the same rows on both drivers: the event loop's
// connections speak the protocol the way pgx does.
func TestScriptsRunTheSameOnBothDrivers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.sql")
	if err := os.WriteFile(path, []byte(driverScript), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, mode := range []string{ModeSimple, ModeExtended, ModePrepared} {
		t.Run("mode "+mode, func(t *testing.T) {
			rows := map[string]string{}
			for _, driver := range []string{loadgen.DriverGoroutine, loadgen.DriverLoop} {
				url, pc := pgWith(t, "dbh_sc_drv_"+driver, "CREATE TABLE log (c int, r int, big bool)",
					"CREATE TABLE log2 (c int, n bigint, r int)")
				w := &Workload{Scripts: []string{path}, QueryMode: mode}
				if err := w.Load(); err != nil {
					t.Fatal(err)
				}
				d, conn := testdb.Connect(t, url)
				if err := w.Setup(ctx, &workload.Env{DB: d, Seed: 5}, conn); err != nil {
					t.Fatal(err)
				}
				res, err := loadgen.Run(ctx, d, w, loadgen.Config{Clients: 3, Transactions: 20, MaxTries: 1,
					Interval: 100 * time.Millisecond, Driver: driver}, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				if n, e := res.Ops[0].Hist.TotalCount(), res.Ops[0].Errors; n != 60 || e != 0 {
					t.Fatalf("%s driver: %d transactions, %d errors %v", driver, n, e, res.ErrorSamples)
				}
				rows[driver] = dump(t, pc, "SELECT string_agg(format('%s/%s/%s', c, r, big), ' ' ORDER BY c, r, big) FROM log") +
					" | " + dump(t, pc, "SELECT string_agg(format('%s/%s/%s', c, n, r), ' ' ORDER BY c, n) FROM log2")
			}
			if rows[loadgen.DriverGoroutine] != rows[loadgen.DriverLoop] {
				t.Errorf("the drivers left different rows:\ngoroutine: %s\nloop:      %s", rows[loadgen.DriverGoroutine], rows[loadgen.DriverLoop])
			}
		})
	}
}

func dump(t *testing.T, pc *pgx.Conn, sql string) string {
	t.Helper()
	var s string
	if err := pc.QueryRow(context.Background(), sql).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}
