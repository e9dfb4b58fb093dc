package results

import (
	"strings"
	"testing"
)

// TestHostCPUWarning: a run warns iff the other processes took more than
// OthersWarnPct of the host, naming the largest three that round above 0%.
func TestHostCPUWarning(t *testing.T) {
	srv := 40.0
	top := []CPUUse{{"yes", 40.2}, {"cc1plus", 1.1}, {"sshd", 0.6}, {"cron", 0.5}, {"kworker", 0.2}}
	for _, c := range []struct {
		others float64
		warn   bool
	}{{0, false}, {4.9, false}, {5, false}, {5.1, true}, {41.3, true}} {
		h := &HostCPU{CPUs: 2, HarnessPct: 10, ServerPct: &srv, OthersPct: c.others, IdlePct: 50 - c.others, TopOthers: top}
		w := h.OthersWarning()
		if h.Interfered() != c.warn || (w != "") != c.warn {
			t.Errorf("others %g%%: interfered %v, warning %q; want a warning %v", c.others, h.Interfered(), w, c.warn)
		}
	}
	h := &HostCPU{CPUs: 2, HarnessPct: 31, ServerPct: &srv, OthersPct: 41.3, IdlePct: 0, TopOthers: top}
	if w := h.OthersWarning(); w != "other processes used 41% of the host's CPU during the measured phase (yes 40%, cc1plus 1%, sshd 1%): the figures include their interference" {
		t.Errorf("warning %q", w)
	}
	if l := h.Line(); l != "harness 31%, server 40%, others 41% (yes 40%, cc1plus 1%, sshd 1%), idle 0% of 2 CPUs" {
		t.Errorf("line %q", l)
	}
	if (&HostCPU{NotMeasured: "x", OthersPct: 50}).Interfered() {
		t.Error("an unmeasured host interfered")
	}
	h = &HostCPU{CPUs: 1, HarnessPct: 90, Server: "inside dbharness, in the harness's share", OthersPct: 1, IdlePct: 9}
	if l := h.Line(); !strings.HasSuffix(l, "idle 9% of 1 CPU; server: inside dbharness, in the harness's share") || strings.Contains(l, "server 0") {
		t.Errorf("line without a server %q", l)
	}
}
