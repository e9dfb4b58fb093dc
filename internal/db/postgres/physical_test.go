package postgres_test

import (
	"context"
	"math"
	neturl "net/url"
	"os"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/testdb"
)

// indexBlocks is the blocks of index name read through the buffer manager
// so far (pg_statio_user_indexes), this session's own reads included: its
// statistics are flushed first, and the snapshot of them dropped.
func indexBlocks(t *testing.T, c db.Conn, name string) int64 {
	t.Helper()
	ctx := context.Background()
	testdb.Exec(t, c, "SELECT pg_stat_force_next_flush()")
	testdb.Exec(t, c, "SELECT 1") // the end of a transaction flushes
	testdb.Exec(t, c, "SELECT pg_stat_clear_snapshot()")
	n, err := db.QueryInt64(ctx, c, "SELECT idx_blks_read + idx_blks_hit FROM pg_statio_user_indexes WHERE indexrelname = $1", name)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestThePhysicalModesAgreeOnOneIndexAndLimitedReadsFewerPages(t *testing.T) {
	url := testdb.Postgres(t, "dbh_phys_modes")
	d, c := testdb.Connect(t, url)
	ctx := context.Background()
	// Random keys inserted one statement at a time split leaves as they
	// come: half-full pages out of order, an index of some 300 pages.
	testdb.Exec(t, c, "CREATE TABLE t (id uuid PRIMARY KEY, pad text)")
	testdb.Exec(t, c, "INSERT INTO t SELECT gen_random_uuid(), 'x' FROM generate_series(1, 40000)")
	pr := d.(evidence.PhysicalReader)
	if _, notes, _ := pr.PreparePhysical(ctx, c, true); len(notes) > 0 {
		t.Fatalf("the test user may create the extensions: %v", notes)
	}
	// Sampled reads a sample of an index above the threshold: lower it so
	// that this small index is sampled.
	old := evidence.SampleAbovePages
	evidence.SampleAbovePages = 50
	defer func() { evidence.SampleAbovePages = old }()

	pk := map[string]evidence.PhysicalItem{}
	observed := map[string]int64{}
	for _, mode := range evidence.PhysicalModes {
		before := indexBlocks(t, c, "t_pkey")
		items, err := pr.Physical(ctx, c, "t", mode)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		observed[mode] = indexBlocks(t, c, "t_pkey") - before
		if len(items) != 2 || items[0].Index != nil || items[1].Index == nil || *items[1].Index != "t_pkey" || !items[1].Primary {
			t.Fatalf("%s: want the table, then its primary key: %+v", mode, items)
		}
		for _, it := range items {
			if it.Error != "" || it.PagesRead == nil || it.SizeBytes == nil || it.Pages == nil {
				t.Fatalf("%s: %+v", mode, it)
			}
		}
		pk[mode] = items[1]
	}
	l, s, dt := pk[evidence.PhysicalLimited], pk[evidence.PhysicalSampled], pk[evidence.PhysicalDetailed]
	for _, x := range []evidence.PhysicalItem{l, s, dt} {
		t.Logf("%s: read %s pages, %s leaves, density %s, fragmentation %s", x.Method, evidence.Int64Text(x.PagesRead),
			evidence.Int64Text(x.LeafPages), evidence.PctText(x.LeafDensityPct), evidence.PctText(x.LeafFragmentationPct))
	}

	// The server's own count of the blocks read agrees with each mode's,
	// and limited reads fewer than sampled, which reads fewer than
	// detailed.
	for _, mode := range evidence.PhysicalModes {
		if observed[mode] != *pk[mode].PagesRead {
			t.Errorf("%s: pg_statio counted %d blocks of the index read; the measurement says %d", mode, observed[mode], *pk[mode].PagesRead)
		}
	}
	if !(observed["limited"] < observed["sampled"] && observed["sampled"] < observed["detailed"]) {
		t.Errorf("blocks read: limited %d, sampled %d, detailed %d; want each fewer than the next", observed["limited"], observed["sampled"], observed["detailed"])
	}
	if *dt.PagesRead != *dt.Pages || *dt.Pages < 150 {
		t.Errorf("detailed read %d pages of %d", *dt.PagesRead, *dt.Pages)
	}

	// The same index: the same size and depth in every mode.
	for _, x := range []evidence.PhysicalItem{l, s} {
		if *x.SizeBytes != *dt.SizeBytes || x.Depth == nil || dt.Depth == nil || *x.Depth != *dt.Depth {
			t.Errorf("%s: size %d depth %v; detailed %d depth %v", x.Method, *x.SizeBytes, x.Depth, *dt.SizeBytes, dt.Depth)
		}
	}
	// Limited reads no leaf: it cannot say how full they are.
	if l.LeafPages != nil || l.LeafDensityPct != nil || l.LeafFragmentationPct != nil {
		t.Errorf("limited gave leaf figures: %+v", l)
	}
	// The sample estimates what detailed counts.
	if s.LeafPages == nil || s.LeafDensityPct == nil || s.LeafFragmentationPct == nil || dt.LeafPages == nil || dt.LeafDensityPct == nil {
		t.Fatalf("sampled %+v, detailed %+v", s, dt)
	}
	if math.Abs(float64(*s.LeafPages-*dt.LeafPages)) > 0.1*float64(*dt.LeafPages) ||
		math.Abs(*s.LeafDensityPct-*dt.LeafDensityPct) > 10 || math.Abs(*s.LeafFragmentationPct-*dt.LeafFragmentationPct) > 25 {
		t.Errorf("sampled (%d leaves, %.1f%% full, %.1f%% out of order) does not agree with detailed (%d, %.1f%%, %.1f%%)",
			*s.LeafPages, *s.LeafDensityPct, *s.LeafFragmentationPct, *dt.LeafPages, *dt.LeafDensityPct, *dt.LeafFragmentationPct)
	}
	// Detailed is pgstatindex's own figures.
	var leaves int64
	var density, frag float64
	if _, err := db.QueryRow(ctx, c, "SELECT leaf_pages, avg_leaf_density, leaf_fragmentation FROM pgstatindex('t_pkey')", nil, &leaves, &density, &frag); err != nil {
		t.Fatal(err)
	}
	if leaves != *dt.LeafPages || density != *dt.LeafDensityPct || frag != *dt.LeafFragmentationPct {
		t.Errorf("detailed %d/%.2f/%.2f; pgstatindex says %d/%.2f/%.2f", *dt.LeafPages, *dt.LeafDensityPct, *dt.LeafFragmentationPct, leaves, density, frag)
	}
}

func TestAUserWhoMayNotCreateTheExtensionsGetsSizesAndOneLineEach(t *testing.T) {
	url := testdb.Postgres(t, "dbh_phys_nopriv")
	_, admin := testdb.Connect(t, url)
	role := os.Getenv("DBHARNESS_TEST_DB_PREFIX") + "dbh_phys_user"
	testdb.Exec(t, admin, "DROP ROLE IF EXISTS "+role, "CREATE ROLE "+role+" LOGIN",
		"CREATE TABLE t (id bigint PRIMARY KEY)", "INSERT INTO t SELECT generate_series(1, 1000)", "GRANT SELECT ON t TO "+role)
	t.Cleanup(func() { testdb.Exec(t, admin, "DROP OWNED BY "+role, "DROP ROLE IF EXISTS "+role) })
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	u.User = neturl.User(role)
	d, c := testdb.Connect(t, u.String())
	ctx := context.Background()
	pr := d.(evidence.PhysicalReader)
	source, notes, created := pr.PreparePhysical(ctx, c, true)
	if len(created) > 0 {
		t.Errorf("a user who may not create them reports %v created", created)
	}
	if source != "pg_class" || len(notes) != 2 {
		t.Fatalf("source %q, notes %q", source, notes)
	}
	for i, ext := range []string{"pgstattuple", "pageinspect"} {
		if !strings.HasPrefix(notes[i], "the "+ext+" extension could not be created (") || !strings.Contains(notes[i], "CREATE EXTENSION "+ext) || strings.Contains(notes[i], "\n") {
			t.Errorf("note %q", notes[i])
		}
	}
	items, err := pr.Physical(ctx, c, "t", evidence.PhysicalDetailed)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 {
		t.Fatalf("%+v", items)
	}
	for _, it := range items {
		if it.Error != "" || it.SizeBytes == nil || *it.SizeBytes == 0 || it.LeafPages != nil || it.LeafDensityPct != nil || it.Depth != nil {
			t.Errorf("without the extensions, %s should have its size and no leaf figure: %+v", it.Name(), it)
		}
	}
}

// extensions lists the database's extensions of the physical measurement.
func extensions(t *testing.T, c db.Conn) []string {
	t.Helper()
	got, err := db.QueryStrings(context.Background(), c, "SELECT extname::text FROM pg_extension WHERE extname IN ('pgstattuple', 'pageinspect') ORDER BY extname DESC")
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestTheExtensionsAreCreatedOnlyWithConsentAndSaidOnce(t *testing.T) {
	url := testdb.Postgres(t, "dbh_phys_consent")
	d, c := testdb.Connect(t, url)
	ctx := context.Background()
	testdb.Exec(t, c, "CREATE TABLE t (id bigint PRIMARY KEY)", "INSERT INTO t SELECT generate_series(1, 1000)")
	pr := d.(evidence.PhysicalReader)

	// Without consent: nothing created, one line saying what would be
	// needed, and the sizes measured all the same.
	source, notes, created := pr.PreparePhysical(ctx, c, false)
	if got := extensions(t, c); len(got) > 0 || len(created) > 0 {
		t.Fatalf("without consent the database has %v, and %v reported created", got, created)
	}
	if source != "pg_class" || len(notes) != 1 || !strings.Contains(notes[0], "--create-extensions") ||
		!strings.Contains(notes[0], "CREATE EXTENSION pgstattuple; CREATE EXTENSION pageinspect") || strings.Contains(notes[0], "\n") {
		t.Fatalf("source %q, notes %q", source, notes)
	}
	items, err := pr.Physical(ctx, c, "t", evidence.PhysicalDetailed)
	if err != nil || len(items) != 2 || items[1].SizeBytes == nil || *items[1].SizeBytes == 0 || items[1].Error != "" {
		t.Fatalf("without the extensions: %+v, %v", items, err)
	}

	// With consent: created, and said.
	source, notes, created = pr.PreparePhysical(ctx, c, true)
	if got := extensions(t, c); len(got) != 2 || strings.Join(created, ",") != "pgstattuple,pageinspect" || len(notes) > 0 {
		t.Fatalf("with consent: the database has %v, %v reported created, notes %q", got, created, notes)
	}
	if source != "pg_class, pgstattuple, pageinspect" {
		t.Errorf("source %q", source)
	}
	// Once there, they are used and not created again.
	if _, notes, created = pr.PreparePhysical(ctx, c, false); len(created) > 0 || len(notes) > 0 {
		t.Errorf("with the extensions there: created %v, notes %q", created, notes)
	}
}
