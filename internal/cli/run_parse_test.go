package cli

import (
	"io"
	"testing"
)

func TestTPCCRetriesConflictsByDefault(t *testing.T) {
	t.Parallel()
	a := &app{stdout: io.Discard, stderr: io.Discard}
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"tpcc"}, 10},
		{[]string{"tpcc-ro"}, 10},
		{[]string{"tpcc", "--max-tries", "1"}, 1},
		{[]string{"tpcb"}, 1},
		{[]string{"tpcb", "--max-tries", "3"}, 3},
	} {
		sp, err := a.parseRun(tc.args)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if got := sp.opts.cfg.MaxTries; got != tc.want {
			t.Errorf("%v: max tries %d, want %d", tc.args, got, tc.want)
		}
	}
}
