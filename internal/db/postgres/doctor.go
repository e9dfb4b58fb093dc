package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
)

// pgDoctorValues are what the server's checks read: the settings as a
// session of the target database sees them (so that ALTER DATABASE ... SET
// shows), and the server's state now.
type pgDoctorValues struct {
	Version string
	// Settings are fsync, synchronous_commit and full_page_writes, as
	// SHOW gives them.
	Settings map[string]string
	// SharedBuffers is shared_buffers in bytes.
	SharedBuffers int64
	// MaxConns, Reserved (superuser_reserved_connections, plus
	// reserved_connections from PostgreSQL 16) and InUse (the other client
	// backends now).
	MaxConns, Reserved, InUse int64
	// DataBytes is the size of the target database.
	DataBytes int64
	// Autovacuum is what each autovacuum worker is doing now.
	Autovacuum []string
}

// ServerChecks implements evidence.ServerChecker.
func (d *pgDB) ServerChecks(ctx context.Context, o evidence.DoctorOptions) ([]evidence.Check, error) {
	c, err := d.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	v := pgDoctorValues{Settings: map[string]string{}}
	if v.Version, err = db.QueryString(ctx, c, "SHOW server_version"); err != nil {
		return nil, err
	}
	for _, s := range []string{"fsync", "synchronous_commit", "full_page_writes"} {
		if v.Settings[s], err = db.QueryString(ctx, c, "SHOW "+s); err != nil {
			return nil, err
		}
	}
	_, err = db.QueryRow(ctx, c, `SELECT pg_size_bytes(current_setting('shared_buffers')),
		current_setting('max_connections')::bigint,
		(SELECT coalesce(sum(setting::bigint), 0) FROM pg_settings WHERE name IN ('superuser_reserved_connections', 'reserved_connections'))::bigint,
		(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()),
		pg_database_size(current_database())`, nil,
		&v.SharedBuffers, &v.MaxConns, &v.Reserved, &v.InUse, &v.DataBytes)
	if err != nil {
		return nil, err
	}
	rows, err := c.Query(ctx, `SELECT coalesce(nullif(query, ''), 'autovacuum worker') FROM pg_stat_activity WHERE backend_type = 'autovacuum worker' ORDER BY pid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var q string
		if err := rows.Scan(&q); err != nil {
			return nil, err
		}
		v.Autovacuum = append(v.Autovacuum, strings.TrimPrefix(q, "autovacuum: "))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return pgChecks(v, o), nil
}

// pgChecks are the server's checks, a pure function of the values read.
func pgChecks(v pgDoctorValues, o evidence.DoctorOptions) []evidence.Check {
	cs := []evidence.Check{evidence.OK("version", "PostgreSQL "+v.Version)}
	durable := func(name, advice string) evidence.Check {
		if v.Settings[name] == "off" {
			return evidence.Warn(name, "off", advice)
		}
		return evidence.OK(name, v.Settings[name])
	}
	cs = append(cs,
		durable("fsync", "commits are not flushed to disk, so the server runs faster than any durable one and a crash can corrupt it: set fsync = on"),
		durable("synchronous_commit", "commits return before their WAL reaches the disk, which no durable configuration does: set synchronous_commit = on unless asynchronous commit is what is tested"),
		durable("full_page_writes", "pages written after a checkpoint are not logged whole, which saves WAL but risks torn pages in a crash: set full_page_writes = on"))
	cs = append(cs, sharedBuffersCheck(v.SharedBuffers, v.DataBytes, o.Memory))
	cs = append(cs, evidence.ConnectionsCheck("max_connections", v.MaxConns, v.Reserved, v.InUse, o.Clients))
	cs = append(cs, evidence.FitsCheck(v.DataBytes, v.SharedBuffers, "shared_buffers", o.Memory, true))
	if n := len(v.Autovacuum); n > 0 {
		cs = append(cs, evidence.Warn("autovacuum", fmt.Sprintf("%d worker(s) running now: %s", n, strings.Join(v.Autovacuum, "; ")),
			"the run would share the disk and CPU with them: wait until pg_stat_progress_vacuum is empty, or VACUUM (ANALYZE) the tables before the run"))
	} else {
		cs = append(cs, evidence.OK("autovacuum", "no worker running"))
	}
	return cs
}

// sharedBuffersCheck holds shared_buffers against the host's memory: a
// buffer that holds the data is enough; otherwise below 1/8 of memory
// (PostgreSQL's documentation starts at 25%) the server copies pages from
// the OS cache, and above 1/2 it leaves too little for that cache and the
// backends' own memory.
func sharedBuffersCheck(sb, data int64, mem *evidence.Memory) evidence.Check {
	const name = "shared_buffers"
	v := evidence.SizeText(sb)
	switch {
	case mem == nil:
		return evidence.Info(name, v+"; the server's host is not this one, so its memory is unknown", "")
	case mem.Total <= 0:
		return evidence.Info(name, v, "")
	}
	v += fmt.Sprintf(", %.0f%% of the host's %s", 100*float64(sb)/float64(mem.Total), evidence.SizeText(mem.Total))
	switch {
	case sb > mem.Total/2:
		return evidence.Warn(name, v, "it leaves too little memory for the OS page cache and the backends' work_mem: set shared_buffers to about 25% of memory")
	case data > sb && sb < mem.Total/8:
		return evidence.Warn(name, v+", smaller than the data", "the server copies pages in and out of the OS page cache: set shared_buffers to about 25% of memory, or to the data's size")
	}
	return evidence.OK(name, v)
}
