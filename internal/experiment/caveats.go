package experiment

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dbharness/dbharness/internal/analysis"
	"github.com/dbharness/dbharness/internal/numfmt"
	"github.com/dbharness/dbharness/internal/results"
)

// RepeatGapSDs is how far apart, in within-run standard deviations of
// per-interval tps, two groups of a point's repeats must be for the
// repeats to disagree: at 3 standard deviations two normal distributions
// share about 13% of their mass, so the one run rarely went where the
// other was (two regimes, not noise).
const RepeatGapSDs = 3.0

// RepeatGapMin is the smallest gap, relative to the slower group's tps,
// that counts as repeats disagreeing: runs on one host commonly differ by
// a few percent (drift, data growth), which the point's interval covers;
// regimes are further apart (issue 38's were twofold).
const RepeatGapMin = 0.10

// MinRoundPoints is the fewest points a round must share with the others
// for its round effect to be tested (a paired t needs 2 degrees of
// freedom to say anything).
const MinRoundPoints = 3

// caveats lists what limits the sweep's analysis (sw.Points and sw.Fits
// filled, runs the sweep's runs): a poor or extrapolated USL fit,
// efficiency above 1, repeats that disagree beyond their own spread and a
// systematic round effect. It is never nil.
func caveats(sw *results.Sweep, runs map[string]*results.Run) []results.SweepCaveat {
	out := []results.SweepCaveat{}
	out = append(out, fitCaveats(sw)...)
	out = append(out, efficiencyCaveats(sw)...)
	out = append(out, repeatCaveats(sw, runs)...)
	out = append(out, roundCaveats(sw)...)
	return out
}

// pointName names a point: "1 client", "8 clients (batch=10)".
func pointName(clients int, vary map[string]string) string {
	s := fmt.Sprintf("%d clients", clients)
	if clients == 1 {
		s = "1 client"
	}
	if v := VaryKey(vary); v != "" {
		s += " (" + v + ")"
	}
	return s
}

func seriesName(vary map[string]string) string {
	if v := VaryKey(vary); v != "" {
		return " (" + v + ")"
	}
	return ""
}

func fitCaveats(sw *results.Sweep) []results.SweepCaveat {
	var out []results.SweepCaveat
	for _, f := range sw.Fits {
		m := f.USL
		if m == nil {
			continue
		}
		peak := "its ceiling"
		if m.AsymptoteTPS != nil {
			peak = fmt.Sprintf("its ceiling (%s tps)", numfmt.Whole(*m.AsymptoteTPS))
		}
		if m.PeakClients != nil && m.PeakTPS != nil {
			peak = fmt.Sprintf("its peak (%.1f clients at %s tps)", *m.PeakClients, numfmt.Whole(*m.PeakTPS))
		}
		switch {
		case m.Poor():
			out = append(out, results.SweepCaveat{Kind: results.CaveatPoorFit, Vary: f.Vary,
				Text: fmt.Sprintf("USL%s: poor fit (R² %.2f, under %.2f): %s is not a finding; the runs scatter too much around the model (see the repeats and the intervals)",
					seriesName(f.Vary), m.R2, results.USLMinR2, peak)})
		case m.PeakExtrapolated:
			out = append(out, results.SweepCaveat{Kind: results.CaveatPeakExtrapolated, Vary: f.Vary,
				Text: fmt.Sprintf("USL%s: %s lies beyond the largest client count measured: an extrapolation, not a finding; sweep past it to see it",
					seriesName(f.Vary), peak)})
		}
	}
	return out
}

// efficiencyCaveats flags every point whose efficiency is above 1: more
// throughput per client than the series' 1-client point, which suggests
// that point was measured in a slow regime.
func efficiencyCaveats(sw *results.Sweep) []results.SweepCaveat {
	var out []results.SweepCaveat
	base := map[string]results.SweepPoint{}
	for _, p := range sw.Points {
		if p.Clients == 1 {
			base[VaryKey(p.Vary)] = p
		}
	}
	for _, p := range sw.Points {
		b, ok := base[VaryKey(p.Vary)]
		if p.Clients <= 1 || p.Efficiency == nil || *p.Efficiency <= 1 || !ok {
			continue
		}
		out = append(out, results.SweepCaveat{Kind: results.CaveatEfficiencyAbove1, Vary: p.Vary, Clients: []int{1, p.Clients}, Runs: b.Runs,
			Text: fmt.Sprintf("efficiency %.2f at %s: %s tps per client against %s at 1 client, more than linear scaling gives; the 1-client baseline is suspect (runs %s)",
				*p.Efficiency, pointName(p.Clients, p.Vary), numfmt.Whole(p.TPSMedian/float64(p.Clients)), numfmt.Whole(b.TPSMedian), strings.Join(b.Runs, ", "))})
	}
	return out
}

// repeatRun is one run of a point, for the repeats' check.
type repeatRun struct {
	id   string
	tps  float64
	idle *float64
}

// repeatCaveats flags each point whose repeats fall into two groups
// further apart than the runs' own interval-to-interval spread allows:
// sorted by tps, the largest gap between neighbours is more than
// RepeatGapSDs pooled within-run standard deviations of per-interval tps,
// and at least RepeatGapMin of the tps below it. Points with a run of
// fewer than 2 measured intervals are not judged.
func repeatCaveats(sw *results.Sweep, runs map[string]*results.Run) []results.SweepCaveat {
	var out []results.SweepCaveat
	for _, p := range sw.Points {
		if len(p.Runs) < 2 || len(p.TPS) != len(p.Runs) {
			continue
		}
		var rs []repeatRun
		var varSum float64
		for i, id := range p.Runs {
			r := runs[id]
			if r == nil {
				break
			}
			ivs := MeasuredIntervalTPS(r, "")
			if len(ivs) < 2 {
				break
			}
			sd := analysis.StdDev(ivs)
			varSum += sd * sd
			rs = append(rs, repeatRun{id: id, tps: p.TPS[i], idle: r.Summary.HostIdlePct})
		}
		if len(rs) != len(p.Runs) {
			continue
		}
		pooled := math.Sqrt(varSum / float64(len(rs)))
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].tps < rs[j].tps })
		cut, gap := 0, 0.0
		for i := 1; i < len(rs); i++ {
			if g := rs[i].tps - rs[i-1].tps; g > gap {
				cut, gap = i, g
			}
		}
		if !(gap > RepeatGapSDs*pooled) || gap < RepeatGapMin*rs[cut-1].tps {
			continue
		}
		spread := "while the runs' intervals do not vary"
		if pooled > 0 {
			spread = fmt.Sprintf("%.1f times the runs' interval-to-interval standard deviation (%s tps)", gap/pooled, numfmt.Whole(pooled))
		}
		var ids []string
		for _, r := range rs {
			ids = append(ids, r.id)
		}
		out = append(out, results.SweepCaveat{Kind: results.CaveatRepeatsDisagree, Vary: p.Vary, Clients: []int{p.Clients}, Runs: ids,
			Text: fmt.Sprintf("repeats at %s disagree beyond their own spread: %s against %s, a gap %s: two regimes, which the point's median and interval describe neither of",
				pointName(p.Clients, p.Vary), repeatGroup(rs[cut:]), repeatGroup(rs[:cut]), spread)})
	}
	return out
}

// repeatGroup writes runs as "8141 tps (run A, host 60% idle) and 8823 tps
// (run B)".
func repeatGroup(rs []repeatRun) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s tps (run %s", numfmt.Whole(r.tps), r.id)
		if r.idle != nil {
			parts[i] += fmt.Sprintf(", host %.0f%% idle", *r.idle)
		}
		parts[i] += ")"
	}
	return strings.Join(parts, " and ")
}

// roundCaveats flags a round whose runs were systematically slower or
// faster than the other rounds' runs of the same points: at each point
// (over every series) the log of the round's tps over the median of the
// other rounds' tps; a paired t interval of their mean that excludes 0 at
// Level, Bonferroni-corrected over the rounds tested (one with 2 rounds,
// where round 2 against round 1 is the same test), is a round effect.
func roundCaveats(sw *results.Sweep) []results.SweepCaveat {
	roundOf := map[string]int{}
	rounds := 0
	for _, pr := range sw.Plan {
		if pr.RunID != "" {
			roundOf[pr.RunID] = pr.Round
			rounds = max(rounds, pr.Round)
		}
	}
	if rounds < 2 {
		return nil
	}
	tested := rounds
	if rounds == 2 {
		tested = 1
	}
	level := 1 - (1-Level)/float64(tested)
	var out []results.SweepCaveat
	for round := 1; round <= tested; round++ {
		var d []float64
		var ids []string
		var clients []int
		slower := 0
		for _, p := range sw.Points {
			var mine, others []float64
			var mineIDs []string
			for i, id := range p.Runs {
				if roundOf[id] == round {
					mine, mineIDs = append(mine, p.TPS[i]), append(mineIDs, id)
				} else {
					others = append(others, p.TPS[i])
				}
			}
			ref := medianOf(others)
			if len(mine) == 0 || !(ref > 0) {
				continue
			}
			for _, x := range mine {
				if !(x > 0) {
					continue
				}
				d = append(d, math.Log(x/ref))
				if x < ref {
					slower++
				}
			}
			ids, clients = append(ids, mineIDs...), append(clients, p.Clients)
		}
		if len(d) < MinRoundPoints {
			continue
		}
		m, lo, hi := analysis.MeanTCI(d, level)
		if !(lo > 0 || hi < 0) {
			continue
		}
		than := "the other rounds"
		if rounds == 2 {
			than = "round 2"
		}
		way, by, from, to, count := "faster", math.Exp(m)-1, math.Exp(lo)-1, math.Exp(hi)-1, len(d)-slower
		if m < 0 {
			way, by, from, to, count = "slower", 1-math.Exp(m), 1-math.Exp(hi), 1-math.Exp(lo), slower
		}
		sort.Ints(clients)
		out = append(out, results.SweepCaveat{Kind: results.CaveatRoundEffect, Clients: uniqueInts(clients), Runs: ids,
			Text: fmt.Sprintf("round %d ran %s than %s at %d of %d runs, by %.0f%% on average (%.4g%% interval %.0f%% to %.0f%%, paired t over the log ratios): the system drifted between rounds (warm-up, caches, data growth, other load), so the repeats are not alike; round %d's runs: %s",
				round, way, than, count, len(d), 100*by, 100*level, 100*from, 100*to, round, strings.Join(ids, ", "))})
	}
	return out
}

func uniqueInts(xs []int) []int {
	var out []int
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}
