package analysis_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/dbharness/dbharness/internal/analysis"
)

func ExampleFitUSL() {
	// A sweep measured at 1 to 64 clients (transactions per second).
	sweep := []analysis.Point{
		{N: 1, X: 1000}, {N: 2, X: 1897.5}, {N: 4, X: 3407.2}, {N: 8, X: 5472.0},
		{N: 16, X: 7174.9}, {N: 32, X: 7057.8}, {N: 64, X: 5239.9},
	}
	fit, err := analysis.FitUSL(sweep)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("lambda %.0f tps, sigma %.3f, kappa %.4f\n", fit.Lambda, fit.Sigma, fit.Kappa)
	fmt.Printf("peak %.0f tps at %.1f clients, R2 %.3f\n", fit.PeakTPS, fit.PeakClients, fit.R2)
	fmt.Printf("predicted at 24 clients: %.0f tps\n", fit.Predict(24))

	_, err = analysis.FitUSL(sweep[:3])
	fmt.Println(err)
	// Output:
	// lambda 1000 tps, sigma 0.050, kappa 0.0020
	// peak 7398 tps at 21.8 clients, R2 1.000
	// predicted at 24 clients: 7376 tps
	// fit USL: at least 4 distinct client counts are needed to fit the Universal Scalability Law, got 3
}

func ExampleCompareSamples() {
	// Throughput of five repeats of a baseline and of a candidate
	// configuration.
	baseline := []float64{1510, 1495, 1502, 1488, 1520}
	candidate := []float64{1640, 1655, 1620, 1661, 1648}
	rng := rand.New(rand.NewPCG(1, 2))
	c := analysis.CompareSamples(baseline, candidate, 0.95, 5000, rng)
	fmt.Printf("%+.1f%% [%+.1f%%, %+.1f%%]: %s\n", c.DeltaPct, c.CILowPct, c.CIHighPct, c.Verdict)
	// Output:
	// +9.7% [+7.9%, +11.1%]: faster
}
