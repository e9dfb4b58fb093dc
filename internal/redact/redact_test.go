package redact_test

import (
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/redact"
)

func TestStringHidesPasswordsInQueryToo(t *testing.T) {
	got := redact.String("postgres://h/d?user=u&password=hunter2")
	if strings.Contains(got, "hunter2") {
		t.Fatal(got)
	}
}

func TestStringKeepsMessagesReadableAndCutsPasswordsInThem(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// A driver's message is not a URL: it keeps its words.
		{"context deadline exceeded", "context deadline exceeded"},
		{"dial tcp 10.0.0.1:3307: i/o timeout", "dial tcp 10.0.0.1:3307: i/o timeout"},
		{"failed to connect to postgres://u:hunter2@h/db: refused", "failed to connect to postgres://u:xxxxx@h/db: refused"},
		{"host=h user=u password=hunter2 dbname=d", "host=h user=u password=xxxxx dbname=d"},
		{"mysql://root:hunter2@127.0.0.1:3306/test", "mysql://root:xxxxx@127.0.0.1:3306/test"},
	} {
		if got := redact.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
