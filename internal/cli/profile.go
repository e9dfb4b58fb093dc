package cli

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/report"
	"github.com/dbharness/dbharness/internal/workload"
)

type profileOpts struct {
	db   string
	json string
}

func (o *profileOpts) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.db, "db", "", "database URL (default: $DBHARNESS_DB, else PostgreSQL from PGHOST, PGPORT, PGUSER or PGDATABASE, else the embedded SQLite database)")
	fs.StringVar(&o.json, "json", "", "write the profile as JSON to FILE (- for standard output)")
}

// cmdProfile prints the data and statistics profile of a loaded workload
// file.
func (a *app) cmdProfile(args []string) error {
	var o profileOpts
	wl, err := workloadFor("profile", args, o.flags)
	if err != nil {
		return err
	}
	if _, err := a.parseFlags("profile", wl, args, o.flags); err != nil {
		return err
	}
	if err := checkOutputFile("--json", o.json); err != nil {
		return err
	}
	pf, ok := wl.(workload.Profiler)
	if !ok {
		return usagef("profile takes a workload file (FILE.yaml), not the built-in workload %s", wl.Name())
	}
	d, err := a.target(o.db)
	if err != nil {
		return err
	}
	defer d.Close()
	ctx := context.Background()
	p, err := profileOf(ctx, d, pf)
	if err != nil {
		return err
	}
	out := a.stdout
	if o.json == "-" {
		out = a.stderr
	}
	p.WriteText(out)
	if o.json != "" {
		return report.WriteJSON(o.json, p)
	}
	return nil
}

func profileOf(ctx context.Context, d db.DB, pf workload.Profiler) (workload.DataProfile, error) {
	conn, err := connect(ctx, d)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return pf.ProfileData(ctx, d, conn)
}
