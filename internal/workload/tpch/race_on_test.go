//go:build race

package tpch_test

// raceEnabled is true under -race, where SQLite (pure Go) runs the 22
// queries about 15 times slower.
const raceEnabled = true
