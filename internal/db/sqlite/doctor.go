package sqlite

import (
	"context"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
)

// liteDoctorValues are what the checks read, on a connection such as the
// run's clients open (with the URL's pragmas): the pragmas journal_mode,
// synchronous, page_size, page_count and cache_size.
type liteDoctorValues struct {
	Version string
	Pragmas map[string]string
}

// ServerChecks implements evidence.ServerChecker: SQLite runs inside
// dbharness, so its "server" is the database file and the connection's
// pragmas.
func (d *liteDB) ServerChecks(ctx context.Context, o evidence.DoctorOptions) ([]evidence.Check, error) {
	c, err := d.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	v := liteDoctorValues{Pragmas: map[string]string{}}
	if v.Version, err = db.QueryString(ctx, c, "SELECT sqlite_version()"); err != nil {
		return nil, err
	}
	for _, p := range []string{"journal_mode", "synchronous", "page_size", "page_count", "cache_size"} {
		if v.Pragmas[p], err = db.QueryString(ctx, c, "PRAGMA "+p); err != nil {
			return nil, err
		}
	}
	return liteChecks(v, o), nil
}

// liteChecks are the checks, a pure function of the values read.
func liteChecks(v liteDoctorValues, o evidence.DoctorOptions) []evidence.Check {
	cs := []evidence.Check{evidence.OK("version", "SQLite "+v.Version)}
	jm := strings.ToLower(v.Pragmas["journal_mode"])
	switch jm {
	case "wal":
		cs = append(cs, evidence.OK("journal_mode", jm))
	case "off", "memory":
		cs = append(cs, evidence.Warn("journal_mode", jm, "transactions are not durable and a crash can corrupt the file: use PRAGMA journal_mode=WAL"))
	default:
		cs = append(cs, evidence.Warn("journal_mode", jm, "each write rewrites the rollback journal and readers block the writer: use PRAGMA journal_mode=WAL, as dbharness does unless the URL says otherwise"))
	}
	// synchronous: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA.
	sync := v.Pragmas["synchronous"]
	names := map[string]string{"0": "OFF", "1": "NORMAL", "2": "FULL", "3": "EXTRA"}
	shown := sync
	if n, ok := names[sync]; ok {
		shown = n + " (" + sync + ")"
	}
	switch {
	case sync == "0":
		cs = append(cs, evidence.Warn("synchronous", shown, "SQLite never waits for the disk, so commits are not durable and run faster than a durable database's: use PRAGMA synchronous=NORMAL with WAL, or FULL"))
	case sync == "1" && jm != "wal":
		cs = append(cs, evidence.Warn("synchronous", shown, "NORMAL without WAL can corrupt the file in a power loss: use WAL, or PRAGMA synchronous=FULL"))
	default:
		cs = append(cs, evidence.OK("synchronous", shown))
	}
	num := func(k string) int64 { n, _ := strconv.ParseInt(v.Pragmas[k], 10, 64); return n }
	page := num("page_size")
	cache := num("cache_size")
	if cache < 0 {
		cache = -cache * 1024
	} else {
		cache *= page
	}
	cs = append(cs, evidence.FitsCheck(num("page_count")*page, cache, "cache_size", o.Memory, true))
	return cs
}
