package doctor

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/procfs"
)

func TestCPUCheckWarnsWhenOthersTakeFivePercent(t *testing.T) {
	// 2 CPUs over a second: 200 ticks.
	quiet := cpuCheck(20, 200, []procfs.Use{{Comm: "cron", Ticks: 1}}, time.Second)
	if quiet.Status != evidence.StatusOK || quiet.Value != "idle 90% over 1.0s; other processes 0%" {
		t.Errorf("one tick of 200 by others: %+v", quiet)
	}
	busy := cpuCheck(190, 200, []procfs.Use{{Comm: "yes", Ticks: 80}, {Comm: "cc1plus", Ticks: 2}, {Comm: "a", Ticks: 1}, {Comm: "b", Ticks: 1}}, time.Second)
	if busy.Status != evidence.StatusWarn || busy.Section != evidence.SectionHost || busy.Advice == "" {
		t.Fatalf("80 ticks of 200 by yes: %+v", busy)
	}
	if want := "idle 5% over 1.0s; other processes 42% (yes 40%, cc1plus 1%)"; busy.Value != want {
		t.Errorf("value %q, want %q", busy.Value, want)
	}
	if c := cpuCheck(10, 200, []procfs.Use{{Comm: "x", Ticks: 10}}, time.Second); c.Status != evidence.StatusWarn {
		t.Errorf("exactly 5%%: %+v", c)
	}
	if c := cpuCheck(0, 0, nil, time.Second); c.Status != evidence.StatusInfo {
		t.Errorf("no ticks: %+v", c)
	}
}

func TestHostChecksFromFakeFiles(t *testing.T) {
	for _, tc := range []struct {
		c    Check
		want string
	}{
		{loadCheck("0.50 0.40 0.30 1/200 999", 2), evidence.StatusOK},
		{loadCheck("1.01 0.40 0.30 1/200 999", 2), evidence.StatusWarn},
		{loadCheck("", 2), evidence.StatusInfo},
		{governorCheck(nil), evidence.StatusInfo},
		{governorCheck([]string{"performance", "performance"}), evidence.StatusOK},
		{governorCheck([]string{"performance", "powersave"}), evidence.StatusWarn},
		{governorCheck([]string{"schedutil"}), evidence.StatusWarn},
		{thpCheck("always [madvise] never"), evidence.StatusOK},
		{thpCheck("always madvise [never]"), evidence.StatusOK},
		{thpCheck("[always] madvise never"), evidence.StatusWarn},
		{thpCheck(""), evidence.StatusInfo},
		{clockCheck("tsc"), evidence.StatusOK},
		{clockCheck("arch_sys_counter"), evidence.StatusOK},
		{clockCheck("kvm-clock"), evidence.StatusInfo},
		{clockCheck("hpet"), evidence.StatusWarn},
		{clockCheck("acpi_pm"), evidence.StatusWarn},
		{clockCheck(""), evidence.StatusInfo},
	} {
		if tc.c.Status != tc.want || tc.c.Section != evidence.SectionHost || tc.c.Value == "" {
			t.Errorf("%+v: want status %s", tc.c, tc.want)
		}
		if (tc.c.Status == evidence.StatusWarn) != (tc.c.Advice != "") {
			t.Errorf("%+v: a warning, and only a warning, says what to change", tc.c)
		}
	}
	if c := governorCheck([]string{"powersave", "performance", "powersave"}); c.Value != "performance on 1 CPUs, powersave on 2 CPUs" {
		t.Errorf("governors: %q", c.Value)
	}
}

func TestSwapCheckReadsMeminfo(t *testing.T) {
	mem := func(swapTotal, swapFree int) []byte {
		return []byte("MemTotal:       16000000 kB\nMemFree:  1000 kB\nMemAvailable:    8000000 kB\n" +
			"SwapTotal:       " + itoa(swapTotal) + " kB\nSwapFree:        " + itoa(swapFree) + " kB\n")
	}
	m := parseMeminfo(mem(0, 0))
	if !m.ok || m.total != 16000000*1024 || m.available != 8000000*1024 {
		t.Fatalf("parsed %+v", m)
	}
	if c := swapCheck(m); c.Status != evidence.StatusOK || c.Value != "none configured" {
		t.Errorf("no swap: %+v", c)
	}
	if c := swapCheck(parseMeminfo(mem(4000000, 3990000))); c.Status != evidence.StatusOK {
		t.Errorf("10 MB swapped of 16 GB: %+v", c)
	}
	if c := swapCheck(parseMeminfo(mem(4000000, 3000000))); c.Status != evidence.StatusWarn || !strings.Contains(c.Value, "in use") {
		t.Errorf("1 GB swapped of 16 GB: %+v", c)
	}
	if c := swapCheck(parseMeminfo(nil)); c.Status != evidence.StatusInfo {
		t.Errorf("no meminfo: %+v", c)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestProbeGivesEveryHostCheck reads this host for real: what it finds
// depends on the machine, so only the shape is asserted.
func TestProbeGivesEveryHostCheck(t *testing.T) {
	start := time.Now()
	cs := StartHost(200*time.Millisecond).Finish(context.Background(), nil)
	if took := time.Since(start); took < 200*time.Millisecond {
		t.Errorf("Finish returned after %v, before the span", took)
	}
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
		if c.Section != evidence.SectionHost || c.Value == "" {
			t.Errorf("check %+v", c)
		}
		switch c.Status {
		case evidence.StatusOK, evidence.StatusInfo:
		case evidence.StatusWarn:
			if c.Advice == "" {
				t.Errorf("a warning without advice: %+v", c)
			}
		default:
			t.Errorf("status %q: %+v", c.Status, c)
		}
	}
	if got, want := strings.Join(names, ","), "load,cpu,cpu governor,transparent huge pages,swap,clock source"; got != want {
		t.Errorf("checks %s, want %s", got, want)
	}
}
