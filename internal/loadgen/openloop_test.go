package loadgen

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

// No transaction starts after the deadline, however late the load generator's own
// timer fires (a busy machine): a run of 1 ns measures nothing.
func TestNoTransactionStartsAfterTheDeadline(t *testing.T) {
	r := &fakeRunner{ops: []string{"a"}}
	cfg := baseConfig()
	cfg.Duration = time.Nanosecond
	for range 20 {
		res, err := Run(context.Background(), &fakeDB{}, r, cfg, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n, _, _ := total(res.Ops); n != 0 {
			t.Fatalf("a 1 ns run measured %d transactions", n)
		}
	}
}
