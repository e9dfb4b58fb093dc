package engine

import (
	"context"
	"testing"
	"time"
)

// At a rate so low that the schedule has no arrival left before the
// deadline, the clients wait for it: the measured phase is the duration
// asked for, not the time of the last arrival.
func TestOpenLoopAtALowRateMeasuresTheWholeDuration(t *testing.T) {
	cfg := baseConfig()
	cfg.Rate, cfg.Duration, cfg.Clients = 0.5, 1500*time.Millisecond, 2
	res, err := Run(context.Background(), &fakeDB{}, &fakeRunner{ops: []string{"a"}}, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Seconds(); got < cfg.Duration.Seconds() {
		t.Fatalf("measured %.3fs of the %s asked for", got, cfg.Duration)
	}
}
