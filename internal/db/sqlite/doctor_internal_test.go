package sqlite

import (
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
)

func TestLiteChecksWarnOfUndurablePragmas(t *testing.T) {
	mem := &evidence.Memory{Total: 1 << 30, Available: 1 << 29}
	for _, tc := range []struct {
		journal, sync         string
		pageCount             string
		wantJ, wantS, wantFit string
	}{
		{"wal", "1", "100", evidence.StatusOK, evidence.StatusOK, evidence.StatusOK},
		{"wal", "0", "100", evidence.StatusOK, evidence.StatusWarn, evidence.StatusOK},
		{"delete", "2", "100", evidence.StatusWarn, evidence.StatusOK, evidence.StatusOK},
		{"delete", "1", "100", evidence.StatusWarn, evidence.StatusWarn, evidence.StatusOK},
		{"off", "3", "100", evidence.StatusWarn, evidence.StatusOK, evidence.StatusOK},
		// 1 GiB of 4 KiB pages, with 2 MiB of cache and 512 MiB available.
		{"wal", "1", "262144", evidence.StatusOK, evidence.StatusOK, evidence.StatusWarn},
	} {
		cs := liteChecks(liteDoctorValues{Version: "3.45.0", Pragmas: map[string]string{"journal_mode": tc.journal, "synchronous": tc.sync,
			"page_size": "4096", "page_count": tc.pageCount, "cache_size": "-2000"}}, evidence.DoctorOptions{Memory: mem})
		got := map[string]string{}
		for _, c := range cs {
			got[c.Name] = c.Status
		}
		if got["journal_mode"] != tc.wantJ || got["synchronous"] != tc.wantS || got["data in memory"] != tc.wantFit {
			t.Errorf("%s, synchronous %s, %s pages: %+v", tc.journal, tc.sync, tc.pageCount, cs)
		}
	}
}
