//go:build race

package datagen

const raceEnabled = true
