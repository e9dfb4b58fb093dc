//go:build !race

package tpch_test

const raceEnabled = false
