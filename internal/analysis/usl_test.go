package analysis

import (
	"math"
	"strings"
	"testing"
)

// uslCurve returns points of the USL with the given parameters at each client
// count, repeated reps times, each multiplied by (1 + noise*z) with z standard
// normal from a fixed seed.
func uslCurve(lambda, sigma, kappa float64, ns []float64, reps int, noise float64, seed uint64) []Point {
	rng := newRand(seed)
	var pts []Point
	for _, n := range ns {
		for range reps {
			pts = append(pts, Point{N: n, X: uslX(lambda, sigma, kappa, n) * (1 + noise*rng.NormFloat64())})
		}
	}
	return pts
}

func relErr(got, want float64) float64 {
	return math.Abs(got-want) / math.Abs(want)
}

func TestFitUSLRecoversKnownParameters(t *testing.T) {
	const lambda, sigma, kappa = 1000.0, 0.05, 0.002
	truePeak := math.Sqrt((1 - sigma) / kappa) // about 21.8 clients
	powersOfTwo := []float64{1, 2, 4, 8, 16, 32, 64}
	tests := []struct {
		name                string
		points              []Point
		tolLambda, tolSigma float64
		tolKappa, tolPeak   float64
	}{
		{
			name:      "a noise-free curve is recovered almost exactly",
			points:    uslCurve(lambda, sigma, kappa, powersOfTwo, 1, 0, 1),
			tolLambda: 0.001, tolSigma: 0.05, tolKappa: 0.05, tolPeak: 0.05,
		},
		{
			name:      "a noise-free curve without a single-client point is recovered",
			points:    uslCurve(lambda, sigma, kappa, []float64{2, 4, 8, 16, 32, 64}, 1, 0, 1),
			tolLambda: 0.001, tolSigma: 0.05, tolKappa: 0.05, tolPeak: 0.05,
		},
		{
			name:      "a curve with 1% multiplicative noise gives the peak within 5%",
			points:    uslCurve(lambda, sigma, kappa, powersOfTwo, 1, 0.01, 2),
			tolLambda: 0.05, tolSigma: 0.25, tolKappa: 0.10, tolPeak: 0.05,
		},
		{
			name:      "three noisy repeats per client count are all used in the fit",
			points:    uslCurve(lambda, sigma, kappa, powersOfTwo, 3, 0.01, 3),
			tolLambda: 0.05, tolSigma: 0.25, tolKappa: 0.10, tolPeak: 0.05,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fit, err := FitUSL(tt.points)
			if err != nil {
				t.Fatalf("FitUSL: %v", err)
			}
			t.Log(fit)
			for _, c := range []struct {
				what      string
				got, want float64
				tol       float64
			}{
				{"lambda", fit.Lambda, lambda, tt.tolLambda},
				{"sigma", fit.Sigma, sigma, tt.tolSigma},
				{"kappa", fit.Kappa, kappa, tt.tolKappa},
				{"peak clients", fit.PeakClients, truePeak, tt.tolPeak},
				{"peak throughput", fit.PeakTPS, uslX(lambda, sigma, kappa, truePeak), tt.tolPeak},
			} {
				if e := relErr(c.got, c.want); e > c.tol {
					t.Errorf("%s = %.6g, want %.6g within %.0f%% (off by %.2f%%)", c.what, c.got, c.want, 100*c.tol, 100*e)
				}
			}
			if !(fit.R2 > 0.99) {
				t.Errorf("R2 = %v, want > 0.99", fit.R2)
			}
			if fit.Points != len(tt.points) {
				t.Errorf("Points = %d, want %d", fit.Points, len(tt.points))
			}
			if !fit.Bounded() {
				t.Error("Bounded() = false for a curve with a retrograde region")
			}
		})
	}
}

func TestFitUSLBoundaryModels(t *testing.T) {
	ns := []float64{1, 2, 4, 8, 16, 32, 64, 128}
	tests := []struct {
		name                      string
		lambda, sigma, kappa      float64
		wantPeakClients, wantPeak float64
	}{
		{"a curve without coherency delay has kappa 0 and an unbounded peak at the asymptote lambda/sigma", 500, 0.1, 0, math.Inf(1), 5000},
		{"a linear curve has sigma and kappa 0 and no peak", 500, 0, 0, math.Inf(1), math.Inf(1)},
		{"a curve without contention has sigma 0 and a peak at sqrt(1/kappa)", 500, 0, 0.0004, 50, uslX(500, 0, 0.0004, 50)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fit, err := FitUSL(uslCurve(tt.lambda, tt.sigma, tt.kappa, ns, 1, 0, 1))
			if err != nil {
				t.Fatalf("FitUSL: %v", err)
			}
			t.Log(fit)
			if tt.sigma == 0 && fit.Sigma != 0 {
				t.Errorf("Sigma = %v, want exactly 0", fit.Sigma)
			}
			if tt.kappa == 0 && fit.Kappa != 0 {
				t.Errorf("Kappa = %v, want exactly 0", fit.Kappa)
			}
			if !sameFloat(fit.Lambda, tt.lambda, 1e-6) {
				t.Errorf("Lambda = %v, want %v", fit.Lambda, tt.lambda)
			}
			if !sameFloat(fit.PeakClients, tt.wantPeakClients, 1e-4) || !sameFloat(fit.PeakTPS, tt.wantPeak, 1e-4) {
				t.Errorf("peak = %v clients at %v, want %v clients at %v", fit.PeakClients, fit.PeakTPS, tt.wantPeakClients, tt.wantPeak)
			}
			if fit.Bounded() != !math.IsInf(tt.wantPeakClients, 1) {
				t.Errorf("Bounded() = %v for peak %v", fit.Bounded(), tt.wantPeakClients)
			}
		})
	}
}

func TestFitUSLRejectsUnusableInput(t *testing.T) {
	tests := []struct {
		name     string
		points   []Point
		wantText []string
	}{
		{
			name:     "three distinct client counts are too few",
			points:   []Point{{1, 100}, {2, 190}, {4, 350}, {4, 355}, {2, 185}},
			wantText: []string{"at least 4 distinct client counts", "got 3"},
		},
		{
			name:     "no points at all are too few",
			points:   nil,
			wantText: []string{"at least 4 distinct client counts", "got 0"},
		},
		{
			name:     "a zero client count is rejected",
			points:   []Point{{0, 0}, {1, 100}, {2, 190}, {4, 350}},
			wantText: []string{"client count", "at least 1", "got 0"},
		},
		{
			name:     "a NaN throughput is rejected",
			points:   []Point{{1, 100}, {2, math.NaN()}, {4, 350}, {8, 600}},
			wantText: []string{"throughput", "got NaN"},
		},
		{
			name:     "a negative throughput is rejected",
			points:   []Point{{1, 100}, {2, -1}, {4, 350}, {8, 600}},
			wantText: []string{"throughput", "non-negative", "got -1"},
		},
		{
			name:     "all-zero throughput is rejected",
			points:   []Point{{1, 0}, {2, 0}, {4, 0}, {8, 0}},
			wantText: []string{"zero"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fit, err := FitUSL(tt.points)
			if err == nil {
				t.Fatalf("FitUSL succeeded with %v", fit)
			}
			for _, want := range tt.wantText {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func TestFitUSLOnDegenerateButValidData(t *testing.T) {
	t.Run("flat throughput fits without error and has an undefined R2", func(t *testing.T) {
		fit, err := FitUSL([]Point{{1, 100}, {2, 100}, {4, 100}, {8, 100}})
		if err != nil {
			t.Fatalf("FitUSL: %v", err)
		}
		if !math.IsNaN(fit.R2) {
			t.Errorf("R2 = %v, want NaN", fit.R2)
		}
		for _, n := range []float64{1, 3, 8} {
			if got := fit.Predict(n); !sameFloat(got, 100, 1e-3) {
				t.Errorf("Predict(%v) = %v, want 100", n, got)
			}
		}
	})
	t.Run("throughput that falls from the start peaks at one client", func(t *testing.T) {
		fit, err := FitUSL([]Point{{1, 100}, {2, 80}, {4, 55}, {8, 30}, {16, 16}})
		if err != nil {
			t.Fatalf("FitUSL: %v", err)
		}
		t.Log(fit)
		if fit.PeakClients != 1 || fit.PeakTPS != fit.Lambda {
			t.Errorf("peak = %v clients at %v, want 1 client at lambda %v", fit.PeakClients, fit.PeakTPS, fit.Lambda)
		}
		if fit.Sigma < 0 || fit.Kappa < 0 {
			t.Errorf("negative parameters: %v", fit)
		}
	})
}

func TestUSLFitPredict(t *testing.T) {
	fit := USLFit{Lambda: 1000, Sigma: 0.05, Kappa: 0.002}
	for _, tt := range []struct {
		n, want float64
	}{
		{1, 1000},
		{2, 2000 / (1 + 0.05 + 0.004)},
		{10, 10000 / (1 + 0.45 + 0.18)},
	} {
		if got := fit.Predict(tt.n); !sameFloat(got, tt.want, 1e-12) {
			t.Errorf("Predict(%v) = %v, want %v", tt.n, got, tt.want)
		}
	}
}

func TestScalingEfficiency(t *testing.T) {
	tests := []struct {
		name       string
		tpsN, tps1 float64
		n          int
		want       float64
	}{
		{"linear scaling is fully efficient", 800, 100, 8, 1},
		{"half the linear throughput is half efficient", 400, 100, 8, 0.5},
		{"one client is its own baseline", 100, 100, 1, 1},
		{"zero clients have no efficiency", 0, 100, 0, math.NaN()},
		{"a zero baseline has no efficiency", 100, 0, 4, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ScalingEfficiency(tt.tpsN, tt.tps1, tt.n); !sameFloat(got, tt.want, 1e-12) {
				t.Errorf("ScalingEfficiency(%v, %v, %d) = %v, want %v", tt.tpsN, tt.tps1, tt.n, got, tt.want)
			}
		})
	}
}
