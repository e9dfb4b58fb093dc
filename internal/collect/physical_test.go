package collect

import (
	"strings"
	"testing"
)

func TestPhysicalAutoIsDetailedOnSmallDataAndLimitedOtherwise(t *testing.T) {
	for _, tc := range []struct {
		flag    string
		total   int64
		changes string
		mode    string
		why     string
	}{
		{"auto", 1 << 20, "", "detailed", "below 64.0 MiB, so detailed"},
		{"", AutoDetailedBelow, "", "limited", "64.0 MiB or more, so limited"},
		{"auto", -1, "", "limited", "size is unknown"},
		{"auto", 1 << 20, "ANALYZE TABLE", "limited", "run ANALYZE TABLE, which changes the optimizer's statistics"},
		{"sampled", 1 << 40, "ANALYZE TABLE", "sampled", ""},
		{"detailed", 1 << 40, "", "detailed", ""},
	} {
		mode, why, err := PhysicalMode(tc.flag, tc.total, tc.changes)
		if err != nil || mode != tc.mode || (tc.why == "") != (why == "") || !strings.Contains(why, tc.why) {
			t.Errorf("%q at %d bytes (%q): %s (%s) %v; want %s (%s)", tc.flag, tc.total, tc.changes, mode, why, err, tc.mode, tc.why)
		}
	}
	if _, _, err := PhysicalMode("fast", 0, ""); err == nil || err.Error() != `--physical "fast": use limited, sampled, detailed or auto` {
		t.Errorf("a bad mode: %v", err)
	}
}
