//go:build race

package tpch_test

// raceEnabled is true under -race, where SQLite (pure Go) runs a few
// hundred times slower: its tests load SF 0.001.
const raceEnabled = true
