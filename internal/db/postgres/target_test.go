package postgres_test

import (
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/db"
	_ "github.com/dbharness/dbharness/internal/db/postgres"
)

// A libpq key=value string is a PostgreSQL target: its host and port tell
// where it is, and its password is never shown.
func TestKeywordValueStringIsAPostgreSQLTarget(t *testing.T) {
	for _, tc := range []struct {
		raw   string
		local bool
	}{
		{"host=127.0.0.1 port=5433 user=u password=pw9 dbname=d sslmode=disable", true},
		{"host=/var/run/postgresql dbname=d password='p w9'", true},
		{"host=db.example.com,db2.example.com port=5432,5433 password=pw9", false},
	} {
		tg, err := db.ParseURL(tc.raw)
		if err != nil {
			t.Fatalf("%q: %v", tc.raw, err)
		}
		if tg.Kind != db.Postgres || tg.Local() != tc.local || strings.Contains(tg.String(), "pw9") || tg.RawURL() != tc.raw {
			t.Errorf("%q: kind %s, local %v, shown %q", tc.raw, tg.Kind, tg.Local(), tg)
		}
	}
	for _, bad := range []string{"host=h port=99999", "host=h garbage", "host=h sslmode=bogus password=pw9"} {
		_, err := db.ParseURL(bad)
		if err == nil || !strings.Contains(err.Error(), "is not a valid PostgreSQL connection string") || strings.Contains(err.Error(), "pw9") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := db.ParseURL("nonsense"); err == nil || !strings.Contains(err.Error(), "has no scheme") {
		t.Errorf("a value of no engine's form: %v", err)
	}
}
