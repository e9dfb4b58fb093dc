package sqlserver_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/testdb"
)

// TestSetSessionSetsTSQLOptionsOnEveryConnection: --set's T-SQL SET
// options hold on every connection the engine opens, and Info shows them as
// the sessions read them; what SQL Server cannot set per session, or what
// the server accepts and ignores, is refused in one sentence.
func TestSetSessionSetsTSQLOptionsOnEveryConnection(t *testing.T) {
	ctx := context.Background()
	url := testdb.SQLServer(t, "dbh_mssql_set")
	d := testdb.Open(t, url)
	set := []db.Assignment{{Name: "LOCK_TIMEOUT", Value: "1500"}, {Name: "xact_abort", Value: "on"},
		{Name: "TRANSACTION_ISOLATION_LEVEL", Value: "read_uncommitted"}}
	if err := db.SetSession(ctx, d, set); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		c, err := d.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for q, want := range map[string]int64{
			"SELECT @@LOCK_TIMEOUT":    1500,
			"SELECT @@OPTIONS & 16384": 16384,
			"SELECT transaction_isolation_level FROM sys.dm_exec_sessions WHERE session_id = @@SPID": 1,
		} {
			// sys.dm_exec_sessions may show the SET a moment after it ran
			// (Babelfish's on a busy host): read until it does, for 2 s.
			got, err := db.QueryInt64(ctx, c, q)
			for end := time.Now().Add(2 * time.Second); err == nil && got != want && time.Now().Before(end); {
				time.Sleep(50 * time.Millisecond)
				got, err = db.QueryInt64(ctx, c, q)
			}
			if err != nil || got != want {
				t.Errorf("connection %d: %s = %d, %v; want %d", i, q, got, err, want)
			}
		}
		c.Close()
	}
	info, err := d.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Settings["LOCK_TIMEOUT"] != "1500" || info.Settings["xact_abort"] != "ON" || info.Settings["TRANSACTION_ISOLATION_LEVEL"] != "1" {
		t.Errorf("info settings %v", info.Settings)
	}

	refused := func(a db.Assignment, want string) {
		t.Helper()
		err := db.CheckSession(ctx, d.Target(), []db.Assignment{a})
		var se *db.SettingError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("--set %s: %v; want one sentence with %q", a, err, want)
		}
	}
	refused(db.Assignment{Name: "NO_SUCH_OPTION", Value: "ON"}, "not a session SET option dbharness knows on SQL Server")
	refused(db.Assignment{Name: "ARITHABORT", Value: "maybe"}, "ARITHABORT takes ON or OFF")
	refused(db.Assignment{Name: "LOCK_TIMEOUT", Value: "-2"}, "from -1 to")
	refused(db.Assignment{Name: "DEADLOCK_PRIORITY", Value: "11"}, "LOW, NORMAL, HIGH")
	refused(db.Assignment{Name: "DELAYED_DURABILITY", Value: "FORCED"}, "delayed durability")
	info, err = d.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if bf := info.Engine == "babelfish"; bf {
		// What Babelfish refuses, and what it accepts and ignores.
		refused(db.Assignment{Name: "TRANSACTION_ISOLATION_LEVEL", Value: "repeatable read"}, "the server refused it: Isolation level 'REPEATABLE READ' is not currently supported in Babelfish")
		refused(db.Assignment{Name: "ARITHABORT", Value: "OFF"}, "does not apply it: the session still reads ON")
		refused(db.Assignment{Name: "DEADLOCK_PRIORITY", Value: "HIGH"}, "does not apply it: the session still reads 0")
		refused(db.Assignment{Name: "DELAYED_DURABILITY", Value: "FORCED"}, "this server has no delayed durability")
	}
}
