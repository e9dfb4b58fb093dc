package collect

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
)

// KindPhysical is the collector of the tables' and indexes' storage.
const KindPhysical = "physical"

func init() {
	// Like the plan check, it runs around the measured phase (Physical),
	// not on its intervals, and after the plan check.
	Register(Kind{Name: KindPhysical, Order: 45, InAll: true,
		Help:  "size, pages, depth, leaf density and fragmentation of the workload's tables and indexes before and after the run (--physical sets the cost)",
		Needs: "a workload that names its tables",
		Phase: startPhysical})
}

// startPhysical measures the storage of the workload's tables (from the
// run's dataset) before the clients start, in the mode env.Option
// (--physical) asks or, by default, the one their size allows; the report
// is env.Run.Physical. It returns the measurement after the run.
func startPhysical(ctx context.Context, env *PhaseEnv) *PhaseHooks {
	run := env.Run
	var tables []string
	total := int64(0)
	if run.Dataset != nil {
		for _, t := range run.Dataset.Tables {
			tables = append(tables, t.Name)
			if t.Bytes == nil || t.IndexBytes == nil || total < 0 {
				total = -1
				continue
			}
			total += *t.Bytes + *t.IndexBytes
		}
	}
	changes := ""
	if sc, ok := env.DB.(evidence.PhysicalStatsChanger); ok {
		changes = sc.PhysicalChangesStats()
	}
	mode, reason, err := PhysicalMode(env.Option, total, changes)
	if err != nil { // checked with the flags; kept safe here
		mode, reason = evidence.PhysicalLimited, errLine(err)
	}
	p, rep := NewPhysical(env.DB, tables, mode, reason, run.Workload)
	run.Physical = rep
	if p == nil { // said in the run's summary and JSON
		return nil
	}
	p.CreateExtensions = env.CreateExtensions
	conn, err := env.Connect(ctx)
	if err != nil {
		rep.Unavailable = "could not connect: " + errLine(err)
		env.Warnf("physical: %s", rep.Unavailable)
		return nil
	}
	defer conn.Close()
	// What the engine cannot give (rep.Notes) is said in the run's
	// summary and JSON rather than warned on every run.
	p.Before(ctx, conn)
	if rep.Unavailable != "" { // the server has no source
		return nil
	}
	if len(rep.CreatedExtensions) > 0 && env.Notef != nil {
		env.Notef("%s", rep.CreatedLine())
	}
	return &PhaseHooks{After: func(ctx context.Context, unhealthy bool) { p.afterRun(ctx, env, unhealthy) }}
}

// afterRun measures the tables again after the run. After a healthy run
// the measurement may take as long as the one before it did (the mode's
// cost is the user's choice), however short the time left; after a run
// whose server did not answer at its end, it keeps to the time left.
func (p *Physical) afterRun(ctx context.Context, env *PhaseEnv, unhealthy bool) {
	if !unhealthy {
		budget := 2*p.Took() + physicalAfterMin
		if dl, ok := ctx.Deadline(); ok {
			budget = max(budget, time.Until(dl))
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), budget)
		defer cancel()
	}
	conn, err := env.Connect(ctx)
	if err != nil {
		env.Warnf("physical measurement after the run: %v", err)
		p.AfterFailed(fmt.Errorf("could not connect: %w", err))
		return
	}
	defer conn.Close()
	p.After(ctx, conn)
}

// physicalAfterMin is the least time the measurement after the run is
// given, beyond twice the time of the one before.
const physicalAfterMin = 10 * time.Second

// AutoDetailedBelow is the size of the workload's tables and indexes
// (read as the run starts) under which --physical auto measures in
// detailed mode; above it, auto measures in limited mode, which reads no
// leaf page, so that --collect all stays cheap on large data.
const AutoDetailedBelow = 64 << 20

// PhysicalMode resolves --physical: "" or auto picks detailed when the
// tables' and indexes' bytes (total, -1 when unknown) are below
// AutoDetailedBelow and limited otherwise, and says why; an explicit mode
// is kept. changesStats, when not empty, says what the engine's leaf
// modes change in the optimizer's statistics: auto then stays limited.
func PhysicalMode(flag string, total int64, changesStats string) (mode, reason string, err error) {
	switch flag {
	case evidence.PhysicalLimited, evidence.PhysicalSampled, evidence.PhysicalDetailed:
		return flag, "", nil
	case "", "auto":
	default:
		return "", "", fmt.Errorf("--physical %q: use limited, sampled, detailed or auto", flag)
	}
	lim := results.HumanBytes(AutoDetailedBelow)
	switch {
	case changesStats != "":
		return evidence.PhysicalLimited, fmt.Sprintf("auto: on this engine sampled and detailed run %s, which changes the optimizer's statistics, so limited (no leaf page read); ask --physical sampled or detailed for leaf figures", changesStats), nil
	case total < 0:
		return evidence.PhysicalLimited, "auto: the tables' size is unknown, so limited (no leaf page read)", nil
	case total < AutoDetailedBelow:
		return evidence.PhysicalDetailed, fmt.Sprintf("auto: the tables and indexes (%s) are below %s, so detailed", results.HumanBytes(total), lim), nil
	default:
		return evidence.PhysicalLimited, fmt.Sprintf("auto: the tables and indexes (%s) are %s or more, so limited (no leaf page read); ask --physical sampled or detailed for leaf figures", results.HumanBytes(total), lim), nil
	}
}

// Physical measures the storage of a workload's tables before and after a
// run.
type Physical struct {
	DB     db.DB
	Tables []string
	Report *results.Physical
	// CreateExtensions lets Before create what the engine measures with
	// (--create-extensions).
	CreateExtensions bool
	// took is how long the measurement before the run took, which bounds
	// the one after it from below.
	took time.Duration
}

// NewPhysical makes the collector for the run's tables in mode (resolved,
// with its reason). It returns the report, which says why nothing will be
// measured when the engine cannot or the workload names no tables; the
// collector is then nil.
func NewPhysical(d db.DB, tables []string, mode, reason, workload string) (*Physical, *results.Physical) {
	rep := &results.Physical{Mode: mode, ModeReason: reason, Before: []evidence.PhysicalItem{}, After: []evidence.PhysicalItem{}}
	if _, ok := d.(evidence.PhysicalReader); !ok {
		rep.Unavailable = fmt.Sprintf("the %s engine cannot say how its tables are stored", d.Target().Kind)
		return nil, rep
	}
	if len(tables) == 0 {
		rep.Unavailable = fmt.Sprintf("workload %s names no tables", workload)
		return nil, rep
	}
	return &Physical{DB: d, Tables: tables, Report: rep}, rep
}

// Before prepares the database and measures every table on conn.
func (p *Physical) Before(ctx context.Context, conn db.Conn) {
	pr := p.DB.(evidence.PhysicalReader)
	p.Report.Source, p.Report.Notes, p.Report.CreatedExtensions = pr.PreparePhysical(ctx, conn, p.CreateExtensions)
	if p.Report.Source == "" {
		// Nothing to read with (a server without the engine's source):
		// the notes say why.
		p.Report.Unavailable, p.Report.Notes = strings.Join(p.Report.Notes, "; "), nil
		return
	}
	start := time.Now()
	p.Report.Before = p.measure(ctx, conn)
	p.took = time.Since(start)
}

// Took is how long the measurement before the run took.
func (p *Physical) Took() time.Duration { return p.took }

// After measures every table again on conn. In limited mode, on an engine
// whose limited figures are statistics only a refresh updates (InnoDB's),
// it refreshes them first, and notes so: else the figures after the run
// would be the ones before it.
func (p *Physical) After(ctx context.Context, conn db.Conn) {
	if sc, ok := p.DB.(evidence.PhysicalStatsChanger); ok && p.Report.Mode == evidence.PhysicalLimited {
		p.Report.Notes = append(p.Report.Notes, sc.RefreshNote())
		for _, t := range p.Tables {
			if err := sc.RefreshPhysicalStats(ctx, conn, t); err != nil {
				p.Report.Notes = append(p.Report.Notes, fmt.Sprintf("%s: the statistics could not be refreshed after the run (%s): its figures after it are InnoDB's last ones", t, errLine(err)))
			}
		}
	}
	p.Report.After = p.measure(ctx, conn)
}

// AfterFailed records why the measurement after the run is missing.
func (p *Physical) AfterFailed(err error) {
	p.Report.AfterError = oneLine(err.Error())
}

func (p *Physical) measure(ctx context.Context, conn db.Conn) []evidence.PhysicalItem {
	pr := p.DB.(evidence.PhysicalReader)
	out := []evidence.PhysicalItem{}
	for _, t := range p.Tables {
		items, err := pr.Physical(ctx, conn, t, p.Report.Mode)
		if err != nil {
			out = append(out, evidence.PhysicalItem{Table: t, Error: oneLine(err.Error())})
			continue
		}
		out = append(out, items...)
	}
	return out
}
