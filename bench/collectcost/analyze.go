//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"time"
)

// loadRun is what analyze reads of a run's JSON (docs/results-json.md).
type loadRun struct {
	StartTime time.Time `json:"start_time"`
	Intervals []struct {
		Phase   string  `json:"phase"`
		T       float64 `json:"t"`
		Seconds float64 `json:"seconds"`
		TPS     float64 `json:"tps"`
	} `json:"intervals"`
}

type window struct{ from, to time.Time }

// analyze compares the load run's throughput in the intervals that lie
// wholly inside an on-window with that in the off-windows on both sides
// of it: one ratio per on-window, so that drift slower than a window
// cancels. The first interval of each window is left out (see below). It prints the ratios' median and mean, and a 95% interval of
// the mean (bootstrap), as the collectors' cost in throughput.
func analyze(runFile, windowsFile string) error {
	if windowsFile == "" {
		return fmt.Errorf("-analyze needs -windows")
	}
	b, err := os.ReadFile(runFile)
	if err != nil {
		return err
	}
	var r loadRun
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("%s: %v", runFile, err)
	}
	f, err := os.Open(windowsFile)
	if err != nil {
		return err
	}
	defer f.Close()
	var on []window
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var a, z int64
		if _, err := fmt.Sscan(sc.Text(), &a, &z); err != nil {
			return fmt.Errorf("%s: %v", windowsFile, err)
		}
		on = append(on, window{time.Unix(0, a), time.Unix(0, z)})
	}
	if len(on) < 2 {
		return fmt.Errorf("%s: fewer than two on-windows", windowsFile)
	}
	// The first interval of each window is left out, on both sides: an
	// on-window's first one holds the collectors' connecting, which a run
	// does once before its measured phase, and an off-window's first one
	// their last samples and closing. What is left is the steady state.
	var step time.Duration
	for _, iv := range r.Intervals {
		step = max(step, time.Duration(iv.Seconds*float64(time.Second)))
	}
	// mean tps of the measured intervals wholly inside [from+step, to]
	mean := func(from, to time.Time) (float64, int) {
		from = from.Add(step)
		var s float64
		n := 0
		for _, iv := range r.Intervals {
			end := r.StartTime.Add(time.Duration(iv.T * float64(time.Second)))
			beg := end.Add(-time.Duration(iv.Seconds * float64(time.Second)))
			if iv.Phase == "measure" && !beg.Before(from) && !end.After(to) {
				s += iv.TPS
				n++
			}
		}
		if n == 0 {
			return 0, 0
		}
		return s / float64(n), n
	}
	var ratios []float64
	intervalsOn, intervalsOff := 0, 0
	for k, w := range on {
		tOn, n := mean(w.from, w.to)
		if n == 0 {
			continue
		}
		var offs []float64
		if k > 0 {
			if m, n := mean(on[k-1].to, w.from); n > 0 {
				offs = append(offs, m)
				intervalsOff += n
			}
		}
		next := w.to.Add(w.to.Sub(w.from))
		if k+1 < len(on) {
			next = on[k+1].from
		}
		if m, n := mean(w.to, next); n > 0 {
			offs = append(offs, m)
			intervalsOff += n
		}
		if len(offs) == 0 {
			continue
		}
		intervalsOn += n
		var off float64
		for _, o := range offs {
			off += o
		}
		ratios = append(ratios, tOn/(off/float64(len(offs))))
	}
	if len(ratios) < 5 {
		return fmt.Errorf("only %d on-windows had load intervals on both sides: is the run's interval shorter than the windows, and did it cover them?", len(ratios))
	}
	sorted := append([]float64(nil), ratios...)
	sort.Float64s(sorted)
	avg := func(x []float64) float64 {
		var s float64
		for _, v := range x {
			s += v
		}
		return s / float64(len(x))
	}
	m := avg(ratios)
	rng := rand.New(rand.NewPCG(1, 2))
	boots := make([]float64, 10000)
	re := make([]float64, len(ratios))
	for i := range boots {
		for j := range re {
			re[j] = ratios[rng.IntN(len(ratios))]
		}
		boots[i] = avg(re)
	}
	sort.Float64s(boots)
	lo, hi := boots[250], boots[9749]
	var sd float64
	for _, v := range ratios {
		sd += (v - m) * (v - m)
	}
	sd = math.Sqrt(sd / float64(len(ratios)-1))
	fmt.Printf("%d on-windows against the off-windows beside them (%d intervals on, %d off)\n", len(ratios), intervalsOn, intervalsOff)
	fmt.Printf("throughput with the collectors on / off: median %.4f, mean %.4f (95%% interval of the mean %.4f-%.4f; one window's sd %.4f; range %.4f-%.4f)\n",
		sorted[len(sorted)/2], m, lo, hi, sd, sorted[0], sorted[len(sorted)-1])
	fmt.Printf("cost in throughput: %.2f%% (95%% interval %.2f%% to %.2f%%)\n", 100*(1-m), 100*(1-hi), 100*(1-lo))
	return nil
}
