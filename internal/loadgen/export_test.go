package loadgen

import "time"

// SetFollowTimes makes following clients look every look and stay gap
// after a move, for a test; it returns what puts the times back.
func SetFollowTimes(look, gap time.Duration) (restore func()) {
	l, g := lookEvery, moveGap
	lookEvery, moveGap = look, gap
	return func() { lookEvery, moveGap = l, g }
}
