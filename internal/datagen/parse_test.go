package datagen

import (
	"math"
	"strings"
	"testing"
)

func TestParseIntDist(t *testing.T) {
	for _, c := range []struct {
		spec string
		want string // the type, or "" for an error
	}{
		{"uniform", "*datagen.Uniform"},
		{" Uniform ", "*datagen.Uniform"},
		{"zipf:1.1", "*datagen.Zipf"},
		{"zipfian:0.8", "*datagen.Zipf"},
		{"gaussian:5", "*datagen.Gaussian"},
		{"exponential:2", "*datagen.Exponential"},
		{"hotspot:0.2:0.8", "*datagen.HotSpot"},
		{"hot-spot: 0.1 : 0.9", "*datagen.HotSpot"},
		{"", ""},
		{"normal", ""},
		{"uniform:3", ""},
		{"zipf", ""},
		{"zipf:0", ""},
		{"zipf:x", ""},
		{"gaussian:1", ""},
		{"exponential:-1", ""},
		{"hotspot:0.2", ""},
		{"hotspot:0.2:1.2", ""},
	} {
		name := "spec " + `"` + c.spec + `" gives a ` + c.want
		if c.want == "" {
			name = "spec " + `"` + c.spec + `" is rejected with an error naming it`
		}
		t.Run(name, func(t *testing.T) {
			d, err := ParseIntDist(c.spec, 1, 1000)
			if c.want == "" {
				if err == nil {
					t.Fatalf("no error, got %T", d)
				}
				if !strings.Contains(err.Error(), `"`+c.spec+`"`) {
					t.Errorf("error %q does not name the spec", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := typeName(d); got != c.want {
				t.Errorf("got %s", got)
			}
			if d.Min() != 1 || d.Max() != 1000 {
				t.Errorf("range [%d, %d], want [1, 1000]", d.Min(), d.Max())
			}
		})
	}
}

func typeName(d IntDist) string {
	switch d.(type) {
	case *Uniform:
		return "*datagen.Uniform"
	case *Zipf:
		return "*datagen.Zipf"
	case *Gaussian:
		return "*datagen.Gaussian"
	case *Exponential:
		return "*datagen.Exponential"
	case *HotSpot:
		return "*datagen.HotSpot"
	}
	return "unknown"
}

func FuzzParseIntDist(f *testing.F) {
	for _, s := range []string{"uniform", "zipf:1.1", "gaussian:2", "exponential:0.001", "hotspot:0.5:0.5", "zipf:1e-300", "hotspot:1e-9:1"} {
		f.Add(s, int64(1), int64(100))
	}
	f.Add("zipf:0.5", int64(math.MinInt64), int64(math.MaxInt64))
	f.Add("gaussian:2", int64(math.MinInt64), int64(math.MaxInt64))
	f.Add("exponential:3", int64(-5), int64(math.MaxInt64))
	f.Fuzz(func(t *testing.T, spec string, lo, hi int64) {
		d, err := ParseIntDist(spec, lo, hi)
		if err != nil {
			return
		}
		if d.Min() != lo || d.Max() != hi {
			t.Fatalf("%q over [%d, %d]: range [%d, %d]", spec, lo, hi, d.Min(), d.Max())
		}
		r := newRand(10)
		for range 100 {
			if v := d.Int64(r); v < lo || v > hi {
				t.Fatalf("%q over [%d, %d] drew %d", spec, lo, hi, v)
			}
		}
	})
}
