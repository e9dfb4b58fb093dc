package sqlite_test

import (
	"context"
	"testing"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/testdb"
)

func TestManyClientsCanOpenAFreshSQLiteDatabaseAtOnce(t *testing.T) {
	// Each new connection switches the file to WAL; done at once on a new
	// file, that used to fail with SQLITE_BUSY.
	for round := 0; round < 100; round++ {
		tg, _ := db.ParseURL(testdb.SQLite(t))
		d, err := db.Open(tg)
		if err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, 16)
		conns := make(chan db.Conn, 16)
		for i := 0; i < 16; i++ {
			go func() {
				c, err := d.Connect(context.Background())
				errs <- err
				conns <- c
			}()
		}
		for i := 0; i < 16; i++ {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if c := <-conns; c != nil {
				c.Close()
			}
		}
		d.Close()
	}
}
