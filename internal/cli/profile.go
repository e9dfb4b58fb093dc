package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/report"
	"github.com/dbharness/dbharness/internal/workload/file"
)

type profileOpts struct {
	db   string
	json string
}

func (o *profileOpts) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.db, "db", "", "database URL (default: the embedded SQLite database)")
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
	fw, ok := wl.(*file.Workload)
	if !ok {
		return usagef("profile takes a workload file (FILE.yaml), not the built-in workload %s", wl.Name())
	}
	d, err := a.target(o.db)
	if err != nil {
		return err
	}
	defer d.Close()
	ctx := context.Background()
	p, err := profileOf(ctx, d, fw)
	if err != nil {
		return err
	}
	out := a.stdout
	if o.json == "-" {
		out = a.stderr
	}
	writeProfile(out, p)
	if o.json != "" {
		return report.WriteJSON(o.json, p)
	}
	return nil
}

func profileOf(ctx context.Context, d db.DB, fw *file.Workload) (*file.Profile, error) {
	conn, err := connect(ctx, d)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	p, err := fw.Profile(ctx, d, conn)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", fw.Path, err)
	}
	return p, nil
}

// writeProfile renders a profile as text.
func writeProfile(w io.Writer, p *file.Profile) {
	fmt.Fprintf(w, "profile of %s on %s\n", p.Workload, p.Target)
	for _, t := range p.Tables {
		fmt.Fprintf(w, "\ntable %s: %d rows", t.Name, t.Rows)
		if t.Pages > 0 || t.AvgRowBytes > 0 {
			fmt.Fprintf(w, ", %.0f bytes per row, %.1f rows per %d-byte page, %d pages (%s)", t.AvgRowBytes, t.RowsPerPage, t.PageBytes, t.Pages, t.Source)
		}
		fmt.Fprintln(w)
		if t.Note != "" {
			fmt.Fprintf(w, "  %s\n", t.Note)
		}
		fmt.Fprintf(w, "  %-16s %10s %7s %7s %7s %7s  %-28s %s\n", "column", "distinct", "null%", "top1%", "top10%", "width", "engine believes", "spec")
		for _, c := range t.Columns {
			eng := "-"
			if e := c.Engine; e != nil {
				eng = fmt.Sprintf("%.0f distinct", e.Distinct)
				if e.TopShare != nil {
					eng += fmt.Sprintf(", top1 %.1f%%", 100**e.TopShare)
				}
			}
			mark := ""
			if len(c.Flags) > 0 {
				mark = " !"
			}
			fmt.Fprintf(w, "  %-16s %10d %7.2f %7.2f %7.2f %7.1f  %-28s %s%s\n", c.Name, c.Distinct, 100*c.NullFrac, 100*c.TopShare, 100*c.Top10Share, c.AvgWidth, eng, c.Spec, mark)
		}
		if ch := t.Children; ch != nil {
			fmt.Fprintf(w, "  children per %s: mean %.2f, max %d, %.1f%% of parents have none, the top 1%% own %.1f%% (spec: %s)\n",
				ch.Parent, ch.Mean, ch.Max, 100*ch.ZeroShare, 100*ch.Top1Share, ch.Spec)
			var parts []string
			for _, b := range ch.Histogram {
				if b.Lo == b.Hi {
					parts = append(parts, fmt.Sprintf("%d:%d", b.Lo, b.Parents))
				} else {
					parts = append(parts, fmt.Sprintf("%d-%d:%d", b.Lo, b.Hi, b.Parents))
				}
			}
			fmt.Fprintf(w, "  parents by children count: %s\n", strings.Join(parts, " "))
		}
	}
	if len(p.Flags) == 0 {
		fmt.Fprintf(w, "\nthe engine's statistics agree with the data within %gx\n", file.FlagRatio)
		return
	}
	fmt.Fprintf(w, "\nstatistics off by more than %gx (plans here may differ from production):\n", file.FlagRatio)
	for _, f := range p.Flags {
		fmt.Fprintf(w, "  ! %s\n", f)
	}
}
