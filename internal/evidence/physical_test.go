package evidence

import "testing"

func TestSampledReadsOnePercentOfALargeIndexAndAtLeastAHundredPages(t *testing.T) {
	for pages, want := range map[int64]int64{50: 50, 5000: 100, 1_000_000: 10_000} {
		if got := SamplePages(pages); got != want {
			t.Errorf("SamplePages(%d) = %d, want %d", pages, got, want)
		}
	}
}
