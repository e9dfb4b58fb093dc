//go:build !race

package tpcc_test

// raceEnabled is true under -race, where SQLite (pure Go) runs a few hundred
// times slower and gets a smaller population.
const raceEnabled = false
