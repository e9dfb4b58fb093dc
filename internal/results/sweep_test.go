package results

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSweepJSONHasTheKeysOtherToolsRead(t *testing.T) {
	v := 2.5
	sw := Sweep{Points: []SweepPoint{{Clients: 1, TPSMedian: 10, TPSCILow: 9, TPSCIHigh: 11, Runs: []string{"a"}}},
		USL: &USLModel{Sigma: 0.1, Kappa: 0.01, PeakClients: &v, PeakTPS: &v, R2: 0.9}}
	b, err := json.Marshal(sw)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	p := m["points"].([]any)[0].(map[string]any)
	for _, k := range []string{"clients", "tps_median", "tps_ci_low", "tps_ci_high", "runs"} {
		if _, ok := p[k]; !ok {
			t.Errorf("points[] lacks %q", k)
		}
	}
	u := m["usl"].(map[string]any)
	for _, k := range []string{"sigma", "kappa", "peak_clients", "peak_tps", "r2"} {
		if _, ok := u[k]; !ok {
			t.Errorf("usl lacks %q", k)
		}
	}
	d := 1.0
	c := Comparison{Ops: []CompareOp{{Name: "total", TPSDeltaPct: &d, P99DeltaPct: &d, Verdict: "faster"}}}
	b, _ = json.Marshal(c)
	for _, k := range []string{`"name":"total"`, `"tps_delta_pct":1`, `"p99_delta_pct":1`, `"verdict":"faster"`, `"config_differences"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("comparison JSON lacks %s: %s", k, b)
		}
	}
}
