package analysis

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// MinUSLClientCounts is the number of distinct client counts FitUSL needs:
// three parameters plus at least one degree of freedom.
const MinUSLClientCounts = 4

// Point is one measurement of a scalability sweep: throughput X observed with
// N concurrent clients.
type Point struct {
	N float64 // concurrent clients, at least 1
	X float64 // throughput, e.g. transactions per second
}

// USLFit is a Universal Scalability Law model fitted to a sweep,
// X(N) = Lambda*N / (1 + Sigma*(N-1) + Kappa*N*(N-1)) (Gunther, "Guerrilla
// Capacity Planning", 2007).
type USLFit struct {
	Lambda float64 // throughput of a single client (ideal slope)
	Sigma  float64 // contention (serial fraction), >= 0
	Kappa  float64 // coherency (crosstalk) penalty, >= 0

	// PeakClients is N* = sqrt((1-Sigma)/Kappa), the client count of maximum
	// throughput, at least 1. It is +Inf when Kappa is 0 and Sigma < 1
	// (throughput keeps rising towards an asymptote, see Bounded) and 1 when
	// Sigma >= 1 or N* < 1 (throughput falls from the first client on).
	PeakClients float64
	// PeakTPS is the throughput at PeakClients; when PeakClients is +Inf it is
	// the asymptote Lambda/Sigma (+Inf when Sigma is 0 too).
	PeakTPS float64
	// R2 is the coefficient of determination of the fit on X; NaN when all
	// measured throughputs are equal.
	R2 float64
	// Points is the number of measurements used, repeats included.
	Points int
}

// Predict returns the model throughput at n clients.
func (f USLFit) Predict(n float64) float64 {
	return uslX(f.Lambda, f.Sigma, f.Kappa, n)
}

// Bounded reports whether the model has a finite throughput peak, that is
// whether coherency makes throughput fall again past PeakClients.
func (f USLFit) Bounded() bool {
	return !math.IsInf(f.PeakClients, 1)
}

// String returns the fit in a single line, e.g. for logs.
func (f USLFit) String() string {
	return fmt.Sprintf("USL lambda=%.4g sigma=%.4g kappa=%.4g peak=%.4g clients at %.4g (R2=%.4f, %d points)",
		f.Lambda, f.Sigma, f.Kappa, f.PeakClients, f.PeakTPS, f.R2, f.Points)
}

func uslX(lambda, sigma, kappa, n float64) float64 {
	return lambda * n / (1 + sigma*(n-1) + kappa*n*(n-1))
}

// ScalingEfficiency returns tpsN / (n * tps1), the fraction of linear scaling
// achieved with n clients (1 is perfectly linear); it returns NaN when n < 1
// or tps1 <= 0.
func ScalingEfficiency(tpsN, tps1 float64, n int) float64 {
	if n < 1 || !(tps1 > 0) {
		return math.NaN()
	}
	return tpsN / (float64(n) * tps1)
}

// FitUSL fits the Universal Scalability Law to the points by nonlinear least
// squares on throughput, with Sigma and Kappa constrained to be non-negative.
// Repeated points at the same client count are all used. It needs at least
// MinUSLClientCounts distinct client counts, every N finite and at least 1,
// every X finite and non-negative, and some X positive.
//
// The fit runs gonum/optimize (BFGS) in the reparametrisation Lambda =
// lambda0*exp(a), Sigma = s^2, Kappa = k^2/max(N)^2 from several starts: the
// linearised estimate (least squares of N/X on 1, N-1 and N(N-1), solved with
// gonum's QR) and a few typical (Sigma, Kappa) pairs; the best fit is kept.
//
// When a simpler model (Kappa = 0, Sigma = 0 or both) fits as well as the
// full one within rounding, the simpler one is returned, so a sweep that
// shows no retrograde region reports Kappa exactly 0 and an unbounded peak.
func FitUSL(points []Point) (USLFit, error) {
	if err := validateUSLPoints(points); err != nil {
		return USLFit{}, err
	}
	p := newUSLProblem(points)
	starts := p.starts()

	type candidate struct {
		theta [3]float64
		f     float64
		nfree int
	}
	var cands []candidate
	for _, free := range [][3]bool{
		{true, true, true},   // full model
		{true, true, false},  // no coherency
		{true, false, true},  // no contention
		{true, false, false}, // linear
	} {
		theta, f := p.solve(free, starts)
		if !finite(f) {
			continue
		}
		n := 0
		for _, b := range free {
			if b {
				n++
			}
		}
		cands = append(cands, candidate{theta, f, n})
	}
	if len(cands) == 0 {
		return USLFit{}, errors.New("fit USL: the optimiser found no finite solution")
	}
	best := cands[0]
	for _, c := range cands[1:] {
		if c.f < best.f {
			best = c
		}
	}
	// Prefer the model with fewest parameters among those that fit as well as
	// the best one up to rounding of the optimiser.
	tol := best.f*1e-6 + 1e-14
	chosen := best
	for _, c := range cands {
		if c.f <= best.f+tol && (c.nfree < chosen.nfree || (c.nfree == chosen.nfree && c.f < chosen.f)) {
			chosen = c
		}
	}

	lambda, sigma, kappa := p.params(chosen.theta[:])
	fit := USLFit{Lambda: lambda, Sigma: sigma, Kappa: kappa, Points: len(points)}
	fit.PeakClients, fit.PeakTPS = uslPeak(lambda, sigma, kappa)
	fit.R2 = rSquared(points, fit.Predict)
	return fit, nil
}

func validateUSLPoints(points []Point) error {
	distinct := map[float64]bool{}
	anyPositive := false
	for i, pt := range points {
		if !finite(pt.N) || pt.N < 1 {
			return fmt.Errorf("fit USL: point %d: client count must be a finite number of at least 1, got %v", i, pt.N)
		}
		if !finite(pt.X) || pt.X < 0 {
			return fmt.Errorf("fit USL: point %d (%v clients): throughput must be finite and non-negative, got %v", i, pt.N, pt.X)
		}
		distinct[pt.N] = true
		anyPositive = anyPositive || pt.X > 0
	}
	if len(distinct) < MinUSLClientCounts {
		return fmt.Errorf("fit USL: at least %d distinct client counts are needed to fit the Universal Scalability Law, got %d",
			MinUSLClientCounts, len(distinct))
	}
	if !anyPositive {
		return errors.New("fit USL: every measured throughput is zero")
	}
	return nil
}

// uslPeak returns the client count of maximum throughput and that throughput.
func uslPeak(lambda, sigma, kappa float64) (n, x float64) {
	switch {
	case sigma >= 1:
		return 1, lambda
	case kappa > 0:
		n = math.Sqrt((1 - sigma) / kappa)
		if n < 1 {
			// The model peaks below one client; over the meaningful range
			// N >= 1 throughput is highest with a single client.
			return 1, lambda
		}
		return n, uslX(lambda, sigma, kappa, n)
	case sigma > 0:
		return math.Inf(1), lambda / sigma
	default:
		return math.Inf(1), math.Inf(1)
	}
}

func rSquared(points []Point, predict func(float64) float64) float64 {
	mean := 0.0
	for _, pt := range points {
		mean += pt.X
	}
	mean /= float64(len(points))
	var ssRes, ssTot float64
	for _, pt := range points {
		r := pt.X - predict(pt.N)
		ssRes += r * r
		d := pt.X - mean
		ssTot += d * d
	}
	if ssTot == 0 {
		return math.NaN()
	}
	return 1 - ssRes/ssTot
}

// uslProblem is the least-squares problem in the unconstrained parameters
// theta = (a, s, k) with Lambda = lambda0*exp(a), Sigma = s^2 and
// Kappa = k^2/nmax^2, scaled so that all three are of order one for a
// typical sweep. The objective is the residual sum of squares divided by the
// sum of squared throughputs.
type uslProblem struct {
	n, x    []float64
	lambda0 float64
	nmax2   float64
	scale   float64
}

func newUSLProblem(points []Point) *uslProblem {
	p := &uslProblem{}
	var sum1, cnt1, bestPerClient, nmax float64
	for _, pt := range points {
		p.n = append(p.n, pt.N)
		p.x = append(p.x, pt.X)
		p.scale += pt.X * pt.X
		nmax = max(nmax, pt.N)
		bestPerClient = max(bestPerClient, pt.X/pt.N)
		if pt.N == 1 {
			sum1 += pt.X
			cnt1++
		}
	}
	p.lambda0 = bestPerClient
	if cnt1 > 0 && sum1 > 0 {
		p.lambda0 = sum1 / cnt1
	}
	p.nmax2 = nmax * nmax
	return p
}

func (p *uslProblem) params(theta []float64) (lambda, sigma, kappa float64) {
	return p.lambda0 * math.Exp(theta[0]), theta[1] * theta[1], theta[2] * theta[2] / p.nmax2
}

func (p *uslProblem) theta(lambda, sigma, kappa float64) [3]float64 {
	return [3]float64{math.Log(lambda / p.lambda0), math.Sqrt(sigma), math.Sqrt(kappa * p.nmax2)}
}

func (p *uslProblem) objective(theta []float64) float64 {
	lambda, sigma, kappa := p.params(theta)
	var sse float64
	for i, n := range p.n {
		r := p.x[i] - uslX(lambda, sigma, kappa, n)
		sse += r * r
	}
	return sse / p.scale
}

// starts returns starting points in theta space: the linearised estimate and
// a few typical (sigma, kappa) pairs.
func (p *uslProblem) starts() [][3]float64 {
	type lsk struct{ lambda, sigma, kappa float64 }
	guesses := []lsk{
		{p.lambda0, 0.01, 0.0001},
		{p.lambda0, 0.1, 0.001},
		{p.lambda0, 0.001, 1e-6},
		{p.lambda0 * 1.2, 0.05, 1 / p.nmax2},
		{p.lambda0, 0.3, 0.01},
	}
	if l, s, k, ok := p.linearised(); ok {
		guesses = append([]lsk{{l, s, k}}, guesses...)
	}
	out := make([][3]float64, 0, len(guesses))
	for _, g := range guesses {
		// Keep starts off the s = 0 and k = 0 boundaries, where the gradient
		// in that coordinate vanishes.
		out = append(out, p.theta(g.lambda, max(g.sigma, 1e-4), max(g.kappa, 1e-4/p.nmax2)))
	}
	return out
}

// linearised estimates the parameters from the linear regression of N/X on
// 1, N-1 and N(N-1), which is exact for noise-free data: N/X = (1 +
// sigma(N-1) + kappa N(N-1)) / lambda.
func (p *uslProblem) linearised() (lambda, sigma, kappa float64, ok bool) {
	var rows []float64
	var ys []float64
	for i, n := range p.n {
		if p.x[i] <= 0 {
			continue
		}
		rows = append(rows, 1, n-1, n*(n-1))
		ys = append(ys, n/p.x[i])
	}
	m := len(ys)
	if m < 3 {
		return 0, 0, 0, false
	}
	var beta mat.VecDense
	if err := beta.SolveVec(mat.NewDense(m, 3, rows), mat.NewVecDense(m, ys)); err != nil {
		return 0, 0, 0, false
	}
	a, b, c := beta.AtVec(0), beta.AtVec(1), beta.AtVec(2)
	if !(a > 0) || !finite(b) || !finite(c) {
		return 0, 0, 0, false
	}
	return 1 / a, max(b/a, 0), max(c/a, 0), true
}

// solve minimises the objective over the free coordinates of theta (the
// others are held at 0) from every start with gonum/optimize (BFGS) and
// returns the best point found and its objective.
func (p *uslProblem) solve(free [3]bool, starts [][3]float64) ([3]float64, float64) {
	best := [3]float64{}
	bestF := math.Inf(1)
	for _, s := range starts {
		for i := range s {
			if !free[i] {
				s[i] = 0
			}
		}
		theta, f := p.minimize(free, s)
		if finite(f) && f < bestF {
			best, bestF = theta, f
		}
	}
	return best, bestF
}

// minimize minimises the objective from theta over the free coordinates
// with gonum's BFGS quasi-Newton method and the analytic gradient; the
// coordinates that are not free stay where they are.
func (p *uslProblem) minimize(free [3]bool, theta [3]float64) ([3]float64, float64) {
	var idx []int
	for i, b := range free {
		if b {
			idx = append(idx, i)
		}
	}
	full := func(x []float64) [3]float64 {
		t := theta
		for u, i := range idx {
			t[i] = x[u]
		}
		return t
	}
	f0 := p.objective(theta[:])
	if !finite(f0) {
		return theta, f0
	}
	prob := optimize.Problem{
		Func: func(x []float64) float64 {
			t := full(x)
			return p.objective(t[:])
		},
		Grad: func(grad, x []float64) {
			t := full(x)
			g := p.gradient(t)
			for u, i := range idx {
				grad[u] = g[i]
			}
		},
	}
	x0 := make([]float64, len(idx))
	for u, i := range idx {
		x0[u] = theta[i]
	}
	settings := &optimize.Settings{
		GradientThreshold: 1e-12,
		MajorIterations:   2000,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-16, Relative: 1e-14, Iterations: 50},
	}
	res, err := optimize.Minimize(prob, x0, settings, &optimize.BFGS{})
	if res == nil || (err != nil && !finite(res.F)) {
		return theta, f0
	}
	if !finite(res.F) || res.F > f0 {
		return theta, f0
	}
	return full(res.X), res.F
}

// gradient is the gradient of the objective in theta.
func (p *uslProblem) gradient(theta [3]float64) [3]float64 {
	var g [3]float64
	lambda, sigma, kappa := p.params(theta[:])
	for i, n := range p.n {
		d := 1 + sigma*(n-1) + kappa*n*(n-1)
		fx := lambda * n / d
		r := p.x[i] - fx
		// d objective / d theta = 2 r (d r / d theta) / scale, with
		// d r / d theta the negated model derivative.
		g[0] += 2 * r * -fx
		g[1] += 2 * r * fx * (n - 1) / d * 2 * theta[1]
		g[2] += 2 * r * fx * n * (n - 1) / d * 2 * theta[2] / p.nmax2
	}
	for i := range g {
		g[i] /= p.scale
	}
	return g
}
