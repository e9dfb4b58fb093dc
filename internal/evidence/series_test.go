package evidence

import "testing"

func TestOldSeriesGetTheirTitlesLayoutsAndHeadlines(t *testing.T) {
	old := &Series{}
	if ti, l := old.TitleAndLayout("os"); ti != "Operating system" || l != LayoutHost {
		t.Errorf("os: %q %q", ti, l)
	}
	if ti, l := old.TitleAndLayout("netstat"); ti != "netstat" || l != LayoutCounters {
		t.Errorf("netstat: %q %q", ti, l)
	}
	if len(old.HeadlinesOf("server")) == 0 || len(old.PriorityOf("server")) == 0 {
		t.Error("an old server series lost its headlines")
	}
	if old.HeadlinesOf("netstat") != nil || old.PriorityOf("netstat") != nil {
		t.Error("a series of another collector got the server's headlines")
	}
	own := &Series{Title: "Network", Layout: LayoutCounters, Headlines: []Headline{}}
	if ti, _ := own.TitleAndLayout("os"); ti != "Network" || own.HeadlinesOf("server") == nil || len(own.HeadlinesOf("server")) != 0 {
		t.Error("a series' own title and headlines do not win")
	}
}
