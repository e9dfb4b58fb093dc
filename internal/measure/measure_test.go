package measure

import (
	"reflect"
	"testing"
	"time"
)

func TestOutagesMergeOverlappingSpansAndKeepOpenOnes(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	end := at(20)
	spans := []Span{
		{From: at(2), To: at(4)},
		{From: at(3), To: at(6)},
		{From: at(3.5), To: at(5)},
		{From: at(6), To: at(7)},     // starts as the second ends: one outage
		{From: at(10), To: at(11)},   // apart
		{From: at(15), Open: true},   // never came back
		{From: at(16), To: at(30)},   // clipped to the end
		{From: at(18), To: at(19.5)}, // inside the open one
	}
	got := Outages(spans, end)
	want := []Outage{
		{Start: at(2), End: at(7), Clients: 3},
		{Start: at(10), End: at(11), Clients: 1},
		{Start: at(15), End: end, Clients: 3, Open: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if o := Outages(nil, end); len(o) != 0 {
		t.Errorf("no spans gave %+v", o)
	}
}
