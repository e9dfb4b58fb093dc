package mysql

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
)

// myDoctorValues are what the server's checks read.
type myDoctorValues struct {
	// Version is VERSION(); Vars are SHOW VARIABLES' values of
	// innodb_flush_log_at_trx_commit, sync_binlog, log_bin,
	// innodb_buffer_pool_size and max_connections.
	Version string
	Vars    map[string]string
	// InUse is the other connections now (Threads_connected less this
	// one).
	InUse int64
	// DataBytes is the InnoDB data and indexes of the URL's database, or of
	// every user schema when the URL names none.
	DataBytes int64
}

// ServerChecks implements evidence.ServerChecker.
func (d *myDB) ServerChecks(ctx context.Context, o evidence.DoctorOptions) ([]evidence.Check, error) {
	c, err := d.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	v := myDoctorValues{Vars: map[string]string{}}
	if v.Version, err = db.QueryString(ctx, c, "SELECT VERSION()"); err != nil {
		return nil, err
	}
	// SHOW VARIABLES: the session's value where a session may change it.
	if err := db.ScanSettings(ctx, c, v.Vars, `SHOW VARIABLES WHERE Variable_name IN ('innodb_flush_log_at_trx_commit',
		'sync_binlog', 'log_bin', 'innodb_buffer_pool_size', 'max_connections')`); err != nil {
		return nil, err
	}
	st := map[string]string{}
	if err := db.ScanSettings(ctx, c, st, "SHOW GLOBAL STATUS WHERE Variable_name = 'Threads_connected'"); err != nil {
		return nil, err
	}
	n, _ := strconv.ParseInt(st["Threads_connected"], 10, 64)
	v.InUse = max(n-1, 0)
	v.DataBytes, err = db.QueryInt64(ctx, c, `SELECT CAST(coalesce(sum(data_length + index_length), 0) AS SIGNED) FROM information_schema.tables
		WHERE engine = 'InnoDB' AND (table_schema = DATABASE() OR (DATABASE() IS NULL
		AND table_schema NOT IN ('mysql', 'sys', 'information_schema', 'performance_schema')))`)
	if err != nil {
		return nil, err
	}
	return myChecks(v, o), nil
}

// myChecks are the server's checks, a pure function of the values read.
func myChecks(v myDoctorValues, o evidence.DoctorOptions) []evidence.Check {
	name := "MySQL"
	if strings.Contains(strings.ToLower(v.Version), "mariadb") {
		name = "MariaDB"
	}
	cs := []evidence.Check{evidence.OK("version", name+" "+v.Version)}
	const flush = "innodb_flush_log_at_trx_commit"
	if f := v.Vars[flush]; f != "1" {
		cs = append(cs, evidence.Warn(flush, f, "the redo log is flushed about once a second rather than at each commit, so commits are not durable and run faster than a durable server's: set innodb_flush_log_at_trx_commit = 1"))
	} else {
		cs = append(cs, evidence.OK(flush, f))
	}
	switch sb := v.Vars["sync_binlog"]; {
	case !strings.EqualFold(v.Vars["log_bin"], "ON") && v.Vars["log_bin"] != "1":
		cs = append(cs, evidence.OK("sync_binlog", sb+" (the binary log is off)"))
	case sb != "1":
		cs = append(cs, evidence.Warn("sync_binlog", sb, "the binary log is not flushed at each commit, so a crash loses transactions a replica may have: set sync_binlog = 1"))
	default:
		cs = append(cs, evidence.OK("sync_binlog", sb))
	}
	bp, _ := strconv.ParseInt(v.Vars["innodb_buffer_pool_size"], 10, 64)
	cs = append(cs, bufferPoolCheck(bp, v.DataBytes, o.Memory))
	maxConns, _ := strconv.ParseInt(v.Vars["max_connections"], 10, 64)
	cs = append(cs, evidence.ConnectionsCheck("max_connections", maxConns, 0, v.InUse, o.Clients))
	// InnoDB reads through its buffer pool, mostly with O_DIRECT: the OS
	// page cache is no second cache, so the data must fit in the pool.
	cs = append(cs, evidence.FitsCheck(v.DataBytes, bp, "innodb_buffer_pool_size", o.Memory, false))
	return cs
}

// bufferPoolCheck holds innodb_buffer_pool_size against the host's memory:
// a pool that holds the data is enough; otherwise below 1/2 of memory the
// pool is smaller than a dedicated server's (MySQL's documentation says up
// to 80%), and above 80% the server risks swapping.
func bufferPoolCheck(bp, data int64, mem *evidence.Memory) evidence.Check {
	const name = "innodb_buffer_pool_size"
	v := evidence.SizeText(bp)
	if mem == nil || mem.Total <= 0 {
		return evidence.Info(name, v+"; the server's host is not this one, so its memory is unknown", "")
	}
	v += fmt.Sprintf(", %.0f%% of the host's %s", 100*float64(bp)/float64(mem.Total), evidence.SizeText(mem.Total))
	switch {
	case bp > mem.Total*8/10:
		return evidence.Warn(name, v, "the server may swap under load: leave at least 20% of memory to the OS and the connections")
	case data > bp && bp < mem.Total/2:
		return evidence.Warn(name, v+", smaller than the data", "reads go to the disk: set innodb_buffer_pool_size to the data's size, or 50 to 75% of memory on a dedicated server")
	}
	return evidence.OK(name, v)
}
