package file

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
)

var _ workload.Profiler = (*Workload)(nil)

// ProfileData implements workload.Profiler: Profile, with the file named in
// its error.
func (w *Workload) ProfileData(ctx context.Context, d db.DB, conn db.Conn) (workload.DataProfile, error) {
	p, err := w.Profile(ctx, d, conn)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", w.Path, err)
	}
	return p, nil
}

// WriteText writes the profile as text.
func (p *Profile) WriteText(w io.Writer) {
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
		fmt.Fprintf(w, "\nthe engine's statistics agree with the data within %gx\n", FlagRatio)
		return
	}
	fmt.Fprintf(w, "\nstatistics off by more than %gx (plans here may differ from production):\n", FlagRatio)
	for _, f := range p.Flags {
		fmt.Fprintf(w, "  ! %s\n", f)
	}
}
