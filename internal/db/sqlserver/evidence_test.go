package sqlserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/testdb"
)

// On the test server each DMV source is probed once: on Babelfish, which
// has none of them, each is named as not measured with the server's own
// error, and the sampler still samples (nothing); on a SQL Server each is
// read.
func TestEachDMVSourceIsProbedAndAMissingOneIsNamed(t *testing.T) {
	t.Parallel()
	url := testdb.SQLServer(t, "dbh_dmvprobe")
	d := testdb.Open(t, url)
	ctx := context.Background()
	info, err := d.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	babelfish := info.Engine == "babelfish"
	se := d.(evidence.ServerEvidence)
	s := se.ServerSampler()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	var sr evidence.Series
	s.Describe(&sr)
	snap, err := s.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sources := []string{"sys.dm_os_performance_counters", "sys.dm_os_spinlock_stats", "sys.dm_io_virtual_file_stats"}
	w := se.WaitProfiler("dbharness-probe", s)
	werr := w.Start(ctx)
	defer w.Stop()
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	psrc, pnotes, _ := d.(evidence.PhysicalReader).PreparePhysical(ctx, c, false)
	if babelfish {
		if psrc != "" || len(pnotes) != 1 || !strings.HasPrefix(pnotes[0], "sys.dm_db_index_physical_stats: ") {
			t.Errorf("physical source %q, notes %q: want none, the function named with the server's error", psrc, pnotes)
		}
		if len(sr.Unavailable) != len(sources) || sr.Source != "" {
			t.Fatalf("source %q, unavailable %q: want every DMV source named as missing", sr.Source, sr.Unavailable)
		}
		for i, src := range sources {
			if !strings.HasPrefix(sr.Unavailable[i], src+": ") || !strings.Contains(sr.Unavailable[i], "does not exist") {
				t.Errorf("unavailable %q: want %s named with the server's error", sr.Unavailable[i], src)
			}
		}
		if len(snap.Counters)+len(snap.Gauges) != 0 {
			t.Errorf("snapshot %+v: want nothing from a server without the views", snap)
		}
		if werr == nil || !strings.Contains(werr.Error(), "sys.dm_os_wait_stats: ") || !strings.Contains(werr.Error(), "sys.dm_exec_requests: ") {
			t.Errorf("wait profile: %v: want both of its sources named", werr)
		}
		return
	}
	if len(sr.Unavailable) != 0 {
		t.Errorf("unavailable %q on %s: want every DMV read (does the login have VIEW SERVER STATE?)", sr.Unavailable, info.Engine)
	}
	if _, ok := snap.Counters["SQL Statistics:Batch Requests/sec"]; !ok {
		t.Errorf("counters %v: no Batch Requests/sec", snap.Counters)
	}
	if werr != nil {
		t.Errorf("wait profile: %v", werr)
	}
	if psrc != "sys.dm_db_index_physical_stats" {
		t.Errorf("physical source %q, notes %q (does the login have VIEW DATABASE STATE?)", psrc, pnotes)
	}
}
