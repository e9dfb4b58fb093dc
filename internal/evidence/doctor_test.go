package evidence

import (
	"strings"
	"testing"
)

func TestConnectionsCheckCountsWhatIsFree(t *testing.T) {
	if c := ConnectionsCheck("max_connections", 100, 3, 10, 80); c.Status != StatusOK {
		t.Errorf("80 clients (+2) of 87 free: %+v", c)
	}
	c := ConnectionsCheck("max_connections", 100, 3, 10, 86)
	if c.Status != StatusWarn || !strings.Contains(c.Advice, "only 87 connections are free") || !strings.Contains(c.Advice, "above 101") {
		t.Errorf("86 clients (+2) of 87 free: %+v", c)
	}
	if c := ConnectionsCheck("max_connections", 10, 0, 30, 1); c.Status != StatusWarn || !strings.Contains(c.Advice, "only 0 connections") {
		t.Errorf("more in use than allowed: %+v", c)
	}
}

func TestFitsCheckAddsTheOSCacheWhereItIsOne(t *testing.T) {
	mem := &Memory{Total: 16 << 30, Available: 8 << 30}
	for _, tc := range []struct {
		data, cache int64
		mem         *Memory
		osCache     bool
		want        string
	}{
		{1 << 20, 128 << 20, nil, true, StatusOK},
		{1 << 30, 128 << 20, mem, true, StatusOK},
		{10 << 30, 128 << 20, mem, true, StatusWarn},
		{1 << 30, 128 << 20, nil, true, StatusInfo},
		{1 << 30, 128 << 20, mem, false, StatusWarn},
		{100 << 20, 128 << 20, mem, false, StatusOK},
	} {
		if c := FitsCheck(tc.data, tc.cache, "cache", tc.mem, tc.osCache); c.Status != tc.want || c.Section != SectionServer {
			t.Errorf("FitsCheck(%d, %d, %v, %v) = %+v, want %s", tc.data, tc.cache, tc.mem, tc.osCache, c, tc.want)
		}
	}
}

func TestSizeText(t *testing.T) {
	for b, want := range map[int64]string{0: "0 B", 512: "512 B", 1536: "1.5 KiB", 128 << 20: "128 MiB", 23 << 30: "23.0 GiB"} {
		if got := SizeText(b); got != want {
			t.Errorf("SizeText(%d) = %q, want %q", b, got, want)
		}
	}
}
