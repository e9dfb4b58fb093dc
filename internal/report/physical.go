package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
)

// physicalHead heads the table of the physical measurements, in text and
// HTML alike.
var physicalHead = []string{"item", "kind", "when", "size", "pages", "leaves", "depth", "density", "frag.", "dead", "free", "read", "time", "method"}

// physicalNum marks the numeric columns of physicalHead.
var physicalNum = []bool{false, false, false, true, true, true, true, true, true, true, true, true, true, false}

// physicalRows is a row per item and measurement (before, then after), of
// the items whose keys are in only (all of them when only is nil).
func physicalRows(p *results.Physical, only []string) [][]string {
	var rows [][]string
	add := func(when string, it *evidence.PhysicalItem) {
		if only != nil && !slices.Contains(only, it.Key()) {
			return
		}
		if it.Error != "" {
			rows = append(rows, []string{it.Name(), it.Kind(), when, "error: " + it.Error, "", "", "", "", "", "", "", "", "", it.Method})
			return
		}
		rows = append(rows, []string{it.Name(), it.Kind(), when, results.BytesText(it.SizeBytes), evidence.Int64Text(it.Pages),
			evidence.Int64Text(it.LeafPages), evidence.Int64Text(it.Depth), evidence.PctText(it.LeafDensityPct),
			evidence.PctText(it.LeafFragmentationPct), evidence.Int64Text(it.DeadRows), results.BytesText(it.FreeBytes),
			evidence.Int64Text(it.PagesRead), results.SecondsText(it.Seconds), it.Method})
	}
	for i := range p.Before {
		add("before", &p.Before[i])
		if a := results.PhysicalFind(p.After, p.Before[i].Key()); a != nil {
			add("after", a)
		}
	}
	for i := range p.After {
		if results.PhysicalFind(p.Before, p.After[i].Key()) == nil {
			add("after", &p.After[i])
		}
	}
	return rows
}

// physicalTable is the head, numeric columns and rows of the physical
// measurement of the items in only (all when nil), without the columns no
// item has a figure in (a dash or nothing in every row), and with the
// method only when withMethod.
func physicalTable(p *results.Physical, only []string, withMethod bool) (head []string, num []bool, rows [][]string) {
	all := physicalRows(p, only)
	n := len(physicalHead)
	if !withMethod {
		n--
	}
	var keep []int
	for i := 0; i < n; i++ {
		used := i < 3 // item, kind and when always
		for _, r := range all {
			if r[i] != "-" && r[i] != "" {
				used = true
			}
		}
		if used {
			keep = append(keep, i)
		}
	}
	for _, i := range keep {
		head, num = append(head, physicalHead[i]), append(num, physicalNum[i])
	}
	for _, r := range all {
		row := make([]string, len(keep))
		for j, i := range keep {
			row[j] = r[i]
		}
		rows = append(rows, row)
	}
	return head, num, rows
}

// physicalMethods says how each item was read, once per distinct method.
func physicalMethods(p *results.Physical) string {
	var parts []string
	seen := map[string]bool{}
	for _, l := range [][]evidence.PhysicalItem{p.Before, p.After} {
		for _, it := range l {
			if k := it.Name() + ": " + it.Method; it.Method != "" && !seen[k] {
				seen[k] = true
				parts = append(parts, k)
			}
		}
	}
	return strings.Join(parts, "; ")
}

// physicalTitle says the mode and why it was chosen.
func physicalTitle(p *results.Physical) string {
	s := "physical (" + p.Mode
	if p.ModeReason != "" {
		s += "; " + p.ModeReason
	}
	return s + ")"
}

// physicalLines writes the physical block of the text summary and `show`:
// why nothing was measured, or a table of the items before and after the
// run, then the engine's notes and what the run created. Unless verbose,
// the table has only the items that changed notably
// (results.PhysicalNotable), and is one line when none did.
func physicalLines(w io.Writer, p *results.Physical, verbose bool) {
	if p == nil {
		return
	}
	if p.Unavailable != "" {
		fmt.Fprintf(w, "  physical: not measured (%s)\n", p.Unavailable)
		return
	}
	var only []string
	hidden := 0
	if !verbose {
		only = p.Notable()
		if only == nil {
			only = []string{} // nothing after the run to compare with
		}
		hidden = p.Items() - len(only)
	}
	switch {
	case only != nil && len(only) == 0 && len(p.After) == 0:
		fmt.Fprintf(w, "  %s: %s measured before the run only (--verbose shows them)\n", physicalTitle(p), tablesAndIndexes(hidden, ""))
	case only != nil && len(only) == 0:
		fmt.Fprintf(w, "  %s: none of the %s measured changed notably over the run (--verbose shows them)\n", physicalTitle(p), tablesAndIndexes(hidden, ""))
	default:
		fmt.Fprintf(w, "  %s:\n", physicalTitle(p))
		physicalTableText(w, p, only)
		if hidden > 0 {
			fmt.Fprintf(w, "    %s did not change notably (--verbose shows %s)\n", tablesAndIndexes(hidden, "other "), pluralThem(hidden))
		}
	}
	if p.AfterError != "" {
		fmt.Fprintf(w, "    after the run: not measured (%s)\n", p.AfterError)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(w, "    note: %s\n", n)
	}
	if l := p.CreatedLine(); l != "" {
		fmt.Fprintf(w, "    %s\n", l)
	}
}

// tablesAndIndexes counts n tables and indexes ("1 other table or index",
// "7 tables and indexes").
func tablesAndIndexes(n int, other string) string {
	if n == 1 {
		return "1 " + other + "table or index"
	}
	return fmt.Sprintf("%d %stables and indexes", n, other)
}

// pluralThem is "it" or "them".
func pluralThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// physicalTableText writes the text table of the items in only (all when
// nil), the method last and unpadded.
func physicalTableText(w io.Writer, p *results.Physical, only []string) {
	head, num, body := physicalTable(p, only, true)
	rows := append([][]string{head}, body...)
	// The method is long and last: it is not padded.
	width := make([]int, len(head)-1)
	for _, r := range rows {
		for i := range width {
			width[i] = max(width[i], len([]rune(r[i])))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		b.WriteString("    ")
		for i := range width {
			pad := strings.Repeat(" ", width[i]-len([]rune(r[i])))
			if num[i] {
				b.WriteString(pad + r[i] + "  ")
			} else {
				b.WriteString(r[i] + pad + "  ")
			}
		}
		b.WriteString(r[len(r)-1])
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// physicalSummary is the headline of the physical measurement for
// Markdown and the HTML report: each index after the run (before when
// there is no after), with its size, leaf density and fragmentation.
func physicalSummary(p *results.Physical) []string {
	if p == nil {
		return nil
	}
	if p.Unavailable != "" {
		return []string{"Physical: not measured (" + p.Unavailable + ")"}
	}
	when := "after the run"
	if len(p.After) == 0 {
		when = "before the run"
	}
	var parts []string
	for _, it := range p.Latest() {
		if it.Error != "" || (it.Index == nil && !it.Primary) {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s, leaf density %s, fragmentation %s", it.Name(), results.BytesText(it.SizeBytes),
			evidence.PctText(it.LeafDensityPct), evidence.PctText(it.LeafFragmentationPct)))
	}
	if len(parts) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("Physical (%s, %s): %s", p.Mode, when, strings.Join(parts, "; "))}
}

// physicalSection is the HTML report's section of the physical
// measurement.
func physicalSection(p *results.Physical) section {
	sec := section{ID: "physical", Title: "Physical storage",
		Intro: "The workload's tables and indexes before and after the run: size, pages, leaf pages (leaves), b-tree depth, how full the leaf pages are (density) and the share of them out of key order (frag.), dead rows and free space, with the pages each measurement read (read) and the time it took. A dash is a figure the engine or the mode cannot give."}
	sec.Facts = append(sec.Facts, kv{"mode", p.Mode})
	if p.ModeReason != "" {
		sec.Facts = append(sec.Facts, kv{"mode chosen", p.ModeReason})
	}
	if p.Source != "" {
		sec.Facts = append(sec.Facts, kv{"source", p.Source})
	}
	if p.Unavailable != "" {
		sec.Facts = append(sec.Facts, kv{"not measured", p.Unavailable})
		return sec
	}
	if p.AfterError != "" {
		sec.Facts = append(sec.Facts, kv{"after the run", "not measured (" + p.AfterError + ")"})
	}
	for _, n := range p.Notes {
		sec.Facts = append(sec.Facts, kv{"note", n})
	}
	if l := p.CreatedLine(); l != "" {
		sec.Facts = append(sec.Facts, kv{"extensions", l})
	}
	if m := physicalMethods(p); m != "" {
		sec.Facts = append(sec.Facts, kv{"read with", m})
	}
	head, num, rows := physicalTable(p, nil, false)
	sec.Tables = append(sec.Tables, table{Head: head, Num: num, Rows: rows})
	return sec
}

// physicalDiffSection is compare's HTML section of physical differences.
func physicalDiffSection(ds []results.PhysicalDiff) section {
	sec := section{ID: "physical-differences", Title: "Physical differences",
		Intro: "The tables and indexes of A and B after each run (--collect physical): a key design that leaves half-full, scattered leaves shows here as a larger index, a lower leaf density and a higher fragmentation."}
	t := table{Head: []string{"item", "kind", "size A", "size B", "leaf density A", "leaf density B", "leaf frag. A", "leaf frag. B"},
		Num: []bool{false, false, true, true, true, true, true, true}}
	for _, d := range ds {
		sa, da, fa := results.PhysicalCompared(d.A)
		sb, db, fb := results.PhysicalCompared(d.B)
		t.Rows = append(t.Rows, []string{d.Key, d.Kind, sa, sb, da, db, fa, fb})
	}
	sec.Tables = append(sec.Tables, t)
	return sec
}

// sweepPhysicalHead heads the table of a sweep's physical medians.
var sweepPhysicalHead = []string{"series", "clients", "item", "kind", "size", "leaf density", "leaf frag."}

// sweepPhysicalRows is a row per point and index of a sweep whose runs
// measured their tables: the medians of the index's size, leaf density and
// fragmentation after the runs. It is empty when no run measured any.
func sweepPhysicalRows(series []sweepSeries) [][]string {
	var rows [][]string
	for _, s := range series {
		for _, p := range s.points {
			for _, x := range p.Physical {
				rows = append(rows, []string{orDash(s.label), strconv.Itoa(p.Clients), x.Key, x.Kind, results.BytesText(x.SizeBytes),
					evidence.PctText(x.LeafDensityPct), evidence.PctText(x.LeafFragmentationPct)})
			}
		}
	}
	return rows
}

// sweepPhysicalNote says what the sweep's physical table holds.
const sweepPhysicalNote = "Each index after the runs (--collect physical; on SQLite the table's own b-tree where it is ordered by the primary key): medians over the point's runs. A dash is a figure the engine or the mode cannot give."
