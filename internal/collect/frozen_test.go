package collect_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/testdb"
)

// A server that stops answering (every process stopped) costs the
// collectors one timeout per sample, never the run its end; they come back
// once it answers again, and the stretch they missed is a gap of their
// series.
func TestThePostgresCollectorsOutliveAFrozenServer(t *testing.T) {
	pg := testdb.PrivatePostgres(t)
	d := testdb.Open(t, pg.URL())
	c := collect.For(d, map[string]bool{evidence.KindServer: true, evidence.KindWaits: true}, d.(db.Tagger).Tag("dbharness-frozen"), nil)
	if w := c.Start(context.Background()); len(w) > 0 {
		t.Fatal(w)
	}
	seq := 0
	boundaries := func(d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); seq++ {
			time.Sleep(250 * time.Millisecond)
			c.Boundary(seq, "measure", time.Now())
		}
	}
	c.Begin(time.Now())
	boundaries(time.Second)
	pg.Freeze()
	boundaries(7 * time.Second) // a sample gives up after 5 s
	pg.Cont()
	boundaries(10 * time.Second) // restarts back off to 4 s
	pg.Freeze()
	begin := time.Now()
	res := c.Stop(-1, "", time.Time{})
	if took := time.Since(begin); took > 30*time.Second {
		t.Errorf("Stop took %s on a frozen server", took)
	}
	pg.Cont()
	s := res.Series[evidence.KindServer]
	var seqs []int
	for _, p := range s.Intervals {
		seqs = append(seqs, p.Seq)
	}
	if len(s.Gaps) == 0 || !strings.Contains(s.Gaps[0].Reason, "did not answer within") {
		t.Fatalf("gaps %+v; points at %v", s.Gaps, seqs)
	}
	g := s.Gaps[0]
	after := 0
	for _, k := range seqs {
		if k >= g.FirstSeq && k <= g.LastSeq {
			t.Errorf("a point at %d inside gap %+v", k, g)
		}
		if k > g.LastSeq {
			after++
		}
	}
	if after == 0 {
		t.Errorf("no point after gap %+v: %v", g, seqs)
	}
	if w := res.Waits; len(w.Gaps) == 0 || len(w.Intervals) == 0 || w.Intervals[len(w.Intervals)-1].Seq <= w.Gaps[0].LastSeq {
		t.Errorf("waits: gaps %+v, %d intervals", w.Gaps, len(w.Intervals))
	}
}
