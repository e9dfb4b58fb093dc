// Package svg draws the charts of dbharness's HTML reports as inline SVG.
//
// The charts are hand-built, with no dependency beyond the standard library,
// no JavaScript and no external fonts (text uses the system's sans-serif
// font), so a report stays a single self-contained file. Each chart type has
// a config struct with Width, Height, Title, XLabel and YLabel fields and a
// Render method returning the <svg> element (WriteTo writes it to an
// io.Writer):
//
//   - LineChart: named series of (x, y) points drawn as lines, points,
//     dashed or dotted lines; linear or log10 axes; error bars; shaded
//     x-ranges (Band, e.g. warm-up), vertical event lines (Marker, e.g.
//     errors, with a hover tooltip) and horizontal reference lines (HLine).
//   - BarChart: grouped bars, vertical or horizontal (a wait-event
//     profile), with optional error bars and value labels.
//   - StackedArea: stacked areas or bars over a shared x, optionally
//     normalised to 100 % (CPU user/system/iowait/idle).
//   - PercentileSpectrum: latency against percentile on a log "1 in N" x
//     axis labelled 90%, 99%, 99.9%, ...
//
// Downsample keeps long series small without losing their peaks, and
// LinearTicks, LogTicks and DurationTicks choose axis ticks.
//
// Every piece of text placed in a chart (titles, labels, series and category
// names, which may come from the database under test) is XML-escaped, and
// user-supplied colours are validated, so hostile names render as text. The
// output is deterministic: the same input gives byte-identical SVG, with
// coordinates rounded to two decimals. Charts carry role="img", an
// aria-label and a <title>; the default palette (Okabe and Ito's
// colour-blind-safe colours) keeps the first series apart by hue or
// lightness, and point markers change shape from series to series. A chart
// with no plottable data renders a small "No data" placeholder instead of
// failing. Element ids are never used, so any number of charts can share one
// HTML page.
//
// Why not a plotting library: gonum/plot (v0.17, its vgsvg backend) was
// tried on the sweep and tpcc charts (2026-11-24). Its SVG has no <title>
// per series or marker, so no hover values without rewriting its output;
// it sizes text from embedded serif fonts; its legend sits on the data; it
// scales the axis to an ideal line it should clip; and the low-rate tpcc
// types still lie on zero. Matching these charts would take as much code
// around it as this package is.
package svg
