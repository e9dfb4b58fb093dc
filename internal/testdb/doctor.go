package testdb

import (
	"context"
	"testing"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
)

// ServerChecks runs d's pre-flight server checks (evidence.ServerChecker)
// for a run of clients clients and returns them by name. It fails the test
// when the engine has none or they cannot be read.
func ServerChecks(t testing.TB, d db.DB, clients int) map[string]evidence.Check {
	t.Helper()
	sc, ok := d.(evidence.ServerChecker)
	if !ok {
		t.Fatalf("the %s engine has no server checks", d.Target().Kind)
	}
	cs, err := sc.ServerChecks(context.Background(), evidence.DoctorOptions{Clients: clients})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]evidence.Check{}
	for _, c := range cs {
		got[c.Name] = c
	}
	return got
}
