package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/testdb"
)

func TestTheRunRecordsWhetherItsSessionsUseTLS(t *testing.T) {
	t.Parallel()
	pg := testdb.Postgres(t, "dbh_tls")
	_, c := testdb.Connect(t, pg)
	ssl, err := db.QueryString(context.Background(), c, "SHOW ssl")
	if err != nil {
		t.Fatal(err)
	}
	sep := "?"
	if strings.Contains(pg, "?") {
		sep = "&"
	}
	for _, tc := range []struct {
		name, url string
		tls       bool
	}{
		{"postgres, TLS as the server allows", pg, ssl == "on"},
		{"postgres, sslmode=disable", pg + sep + "sslmode=disable", false},
		{"mariadb", testdb.MySQL(t, "dbh_tls"), false},
	} {
		home := t.TempDir()
		js := filepath.Join(home, "run.json")
		r := dbh(t, home, "run", "null", "--db", tc.url, "-t", "5", "-P", "0", "--collect", "none", "--json", js)
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", tc.name, r.code, r.all())
		}
		var run results.Run
		b, err := os.ReadFile(js)
		if err == nil {
			err = json.Unmarshal(b, &run)
		}
		if err != nil {
			t.Fatal(err)
		}
		got := run.Engine.TLS
		if tc.tls && !strings.HasPrefix(got, "TLSv") || !tc.tls && got != "off" {
			t.Errorf("%s: engine.tls %q", tc.name, got)
		}
		id := strings.Fields(r.stdout[strings.Index(r.stdout, "saved as run "):])[3]
		show := dbh(t, home, "show", id)
		if line := run.Engine.TLSLine(); line == "" || !strings.Contains(r.stdout, "\n"+line+"\n") || !strings.Contains(show.stdout, "\n"+line+"\n") {
			t.Errorf("%s: the summary and show do not say %q:\n%s\n%s", tc.name, line, r.stdout, show.stdout)
		}
	}
}
