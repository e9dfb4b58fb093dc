package sqlserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
)

// msDoctorValues are what the server's checks read. A value the server
// does not show (Babelfish has no sys.configurations rows, no
// delayed_durability_desc and no sys.dm_db_partition_stats) is absent.
type msDoctorValues struct {
	// Version is @@VERSION's first line; Babelfish says whether the
	// server is Babelfish.
	Version   string
	Babelfish bool
	// Database is the session's database; DelayedDurability its
	// delayed_durability_desc ("" when not shown); RCSI its
	// is_read_committed_snapshot_on (nil when not shown).
	Database          string
	DelayedDurability string
	RCSI              *bool
	// Config is sys.configurations' value_in_use by name.
	Config map[string]int64
	// MaxConns is @@MAX_CONNECTIONS; InUse the other user sessions now
	// (sys.dm_exec_sessions: on SQL Server, all of them only with VIEW
	// SERVER STATE).
	MaxConns, InUse int64
	// DataBytes is the database's reserved pages in bytes
	// (sys.dm_db_partition_stats); -1 when not shown.
	DataBytes int64
}

// msConfigs are the sys.configurations settings the checks read.
var msConfigs = []string{"max server memory (MB)", "max degree of parallelism", "cost threshold for parallelism", "user connections"}

// ServerChecks implements evidence.ServerChecker.
func (d *msDB) ServerChecks(ctx context.Context, o evidence.DoctorOptions) ([]evidence.Check, error) {
	c, err := d.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	v := msDoctorValues{Config: map[string]int64{}, DataBytes: -1}
	full, err := db.QueryString(ctx, c, "SELECT @@VERSION")
	if err != nil {
		return nil, err
	}
	v.Version, _, _ = strings.Cut(strings.TrimSpace(full), "\n")
	v.Babelfish = isBabelfish(full)
	var dd *string
	if _, err := db.QueryRow(ctx, c, "SELECT DB_NAME(), delayed_durability_desc, is_read_committed_snapshot_on FROM sys.databases WHERE database_id = DB_ID()",
		nil, &v.Database, &dd, &v.RCSI); err != nil {
		return nil, err
	}
	if dd != nil {
		v.DelayedDurability = *dd
	}
	quoted := make([]string, len(msConfigs))
	for i, n := range msConfigs {
		quoted[i] = "'" + n + "'"
	}
	config := map[string]string{}
	if err := db.ScanSettings(ctx, c, config, "SELECT name, CAST(value_in_use AS varchar(20)) FROM sys.configurations WHERE name IN ("+strings.Join(quoted, ", ")+")"); err != nil {
		return nil, err
	}
	for name, val := range config {
		if n, err := strconv.ParseInt(val, 10, 64); err == nil {
			v.Config[name] = n
		}
	}
	if v.MaxConns, err = db.QueryInt64(ctx, c, "SELECT @@MAX_CONNECTIONS"); err != nil {
		return nil, err
	}
	if v.InUse, err = db.QueryInt64(ctx, c, "SELECT count(*) FROM sys.dm_exec_sessions WHERE is_user_process = 1 AND session_id <> @@SPID"); err != nil {
		return nil, err
	}
	// Not on Babelfish: its data's size is unknown there.
	if n, err := db.QueryInt64(ctx, c, "SELECT CAST(coalesce(sum(reserved_page_count), 0) AS bigint) * 8192 FROM sys.dm_db_partition_stats"); err == nil {
		v.DataBytes = n
	}
	return msChecks(v, o), nil
}

// onPGSide is what the checks say of a setting Babelfish leaves to its
// PostgreSQL.
const onPGSide = "doctor checks it on Babelfish's PostgreSQL side (--db postgres://HOST:PORT/babelfish_db)"

// msChecks are the server's checks, a pure function of the values read.
func msChecks(v msDoctorValues, o evidence.DoctorOptions) []evidence.Check {
	cs := []evidence.Check{evidence.OK("version", v.Version)}
	const dd = "delayed durability"
	switch v.DelayedDurability {
	case "FORCED":
		cs = append(cs, evidence.Warn(dd, "FORCED in "+v.Database, fmt.Sprintf("commits return before their log is written, so they are not durable and run faster than a durable server's: ALTER DATABASE %s SET DELAYED_DURABILITY = DISABLED", v.Database)))
	case "ALLOWED":
		cs = append(cs, evidence.OK(dd, "ALLOWED in "+v.Database+": only the transactions that ask (--delayed-durability) are delayed"))
	case "":
		if v.Babelfish {
			cs = append(cs, evidence.Info(dd, "not shown: Babelfish's commits are as durable as its PostgreSQL's fsync and synchronous_commit make them", onPGSide))
		} else {
			cs = append(cs, evidence.Info(dd, "not shown by the server", ""))
		}
	default:
		cs = append(cs, evidence.OK(dd, v.DelayedDurability+" in "+v.Database))
	}
	if v.RCSI != nil {
		val := "off in " + v.Database + ": readers wait for the writers' row locks"
		if *v.RCSI {
			val = "on in " + v.Database + ": readers see the last committed version and do not wait for writers"
		}
		cs = append(cs, evidence.Info("read committed snapshot", val, ""))
	}
	const mem = "max server memory"
	maxMem, memShown := v.Config["max server memory (MB)"]
	switch {
	case !memShown && v.Babelfish:
		cs = append(cs, evidence.Info(mem, "not shown: Babelfish's cache is its PostgreSQL's shared_buffers", onPGSide))
	case !memShown:
		cs = append(cs, evidence.Info(mem, "not shown by the server", ""))
	default:
		cs = append(cs, maxMemoryCheck(maxMem<<20, o.Memory))
	}
	for _, n := range []string{"max degree of parallelism", "cost threshold for parallelism"} {
		if x, ok := v.Config[n]; ok {
			val := fmt.Sprint(x)
			if n == "max degree of parallelism" && x == 0 {
				val = "0 (as many as the server has CPUs)"
			}
			cs = append(cs, evidence.Info(n, val, ""))
		}
	}
	maxConns := v.MaxConns
	if uc := v.Config["user connections"]; uc > 0 && (maxConns <= 0 || uc < maxConns) {
		maxConns = uc
	}
	cs = append(cs, evidence.ConnectionsCheck("max connections", maxConns, 0, v.InUse, o.Clients))
	switch {
	case v.DataBytes < 0:
		cs = append(cs, evidence.Info("data in memory", "the data's size is not shown (sys.dm_db_partition_stats)", ""))
	case memShown:
		cache := maxMem << 20
		if o.Memory != nil && o.Memory.Total > 0 {
			cache = min(cache, o.Memory.Total)
		}
		// SQL Server reads through its own buffer pool: the OS page cache
		// is no second cache.
		cs = append(cs, evidence.FitsCheck(v.DataBytes, cache, "max server memory", o.Memory, false))
	}
	return cs
}

// maxMemoryCheck holds max server memory against the host's memory: at its
// default (2,147,483,647 MB) or above 80% of the host's, SQL Server takes
// memory until the OS, and a client on the same host, run short.
func maxMemoryCheck(b int64, m *evidence.Memory) evidence.Check {
	const name = "max server memory"
	v := evidence.SizeText(b)
	if b >= 2147483647<<20 {
		v = "unlimited (the default)"
	}
	if m == nil || m.Total <= 0 {
		return evidence.Info(name, v+"; the server's host is not this one, so its memory is unknown", "")
	}
	if b > m.Total*8/10 {
		return evidence.Warn(name, fmt.Sprintf("%s, host %s", v, evidence.SizeText(m.Total)),
			"the server takes memory until the OS and anything else on its host run short: set max server memory to about 75% of the host's memory, less what else runs there")
	}
	return evidence.OK(name, fmt.Sprintf("%s, %.0f%% of the host's %s", v, 100*float64(b)/float64(m.Total), evidence.SizeText(m.Total)))
}
