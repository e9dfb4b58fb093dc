package evidence

// Series is one collector's samples, one point per interval of the run.
type Series struct {
	// Source says where the numbers come from, e.g. "/proc on the local
	// host" or "pg_stat_database, pg_stat_wal, pg_stat_bgwriter".
	Source string `json:"source"`
	// Describes says which machine or server the numbers describe (for the
	// OS collector: "client host").
	Describes string `json:"describes,omitempty"`
	// DBLocal is true when the database target is on the client host
	// (127.0.0.1, localhost, a Unix socket or an SQLite file), so the
	// client host's counters include the server's work.
	DBLocal *bool `json:"db_local,omitempty"`
	// Title heads the series' section in reports ("Operating system");
	// Layout says how reports draw it (Layout* constants). A collector
	// sets both; see TitleAndLayout for runs saved without them.
	Title  string `json:"title,omitempty"`
	Layout string `json:"layout,omitempty"`
	// Side names the other endpoint of the server the series was read
	// from (--server-evidence), e.g. "Babelfish's PostgreSQL side"; empty
	// when it was read from the target itself.
	Side string `json:"side,omitempty"`
	// Unavailable lists parts that could not be read, each with its reason.
	Unavailable []string `json:"unavailable,omitempty"`
	Intervals   []Point  `json:"intervals"`
	// Totals are the counters' increases over the measured phase (not
	// rates), for figures per transaction.
	Totals map[string]float64 `json:"totals,omitempty"`
	// Headlines are the figures the report's one-line summary of the
	// collector singles out, in order; the collector names them (for the
	// server, the engine's package). Runs saved before they were stored
	// have none: see HeadlinesOf.
	Headlines []Headline `json:"headlines,omitempty"`
	// Priority lists counter names (or their ends) that the report's
	// counter charts and tables rank first, in order; the rest follow by
	// their mean rate. See PriorityOf for runs saved without it.
	Priority []string `json:"priority,omitempty"`
	// Gaps are the stretches of the run the collector did not cover (see
	// Gap), in order.
	Gaps []Gap `json:"gaps,omitempty"`
}

// Gap is a stretch of the run a collector did not cover: its connection
// was lost, or a sample failed or timed out, and it sampled again only
// later (after reconnecting). No point spans a gap, so no rate or total
// mixes the counters of two lives of the server (a restart resets them).
type Gap struct {
	// FirstSeq and LastSeq are the run's intervals left uncovered
	// (inclusive).
	FirstSeq int `json:"first_seq"`
	LastSeq  int `json:"last_seq"`
	// From and To are the gap's start and end, in seconds since the start
	// of the run: the boundaries of the last sample before it and of the
	// first one after it.
	From float64 `json:"from"`
	To   float64 `json:"to"`
	// Reason says why, as a phrase: "its connection was lost", "the server
	// did not answer within 5s", "its sample failed".
	Reason string `json:"reason"`
	// Error is the first error met, on one line.
	Error string `json:"error,omitempty"`
}

// Headline is one figure of a collector's summary line.
type Headline struct {
	// Label is the text shown, with {} where the value goes: "WAL {}/
	// transaction (server-wide)", "{} deadlocks".
	Label string `json:"label"`
	// Key is the counter or value the figure comes from; for Show
	// ShowWaits, the prefix of three totals (see there).
	Key string `json:"key"`
	// Show says how the figure is computed and written (Show* constants).
	Show string `json:"show"`
}

// How a Headline is shown (Headline.Show). A figure whose counter or value
// is missing is left out.
const (
	// ShowBytesPerTx: the counter's total over the measured phase per
	// transaction, as a byte size ("1.2 kB").
	ShowBytesPerTx = "bytes_per_transaction"
	// ShowMeanPct: the value's time-weighted mean over the measured
	// intervals, as a percentage with two decimals ("99.52%").
	ShowMeanPct = "mean_pct"
	// ShowMean: the value's time-weighted mean over the measured
	// intervals, with one decimal.
	ShowMean = "mean"
	// ShowCount: the counter's total over the measured phase, shown only
	// when above zero.
	ShowCount = "count"
	// ShowLast: the value at the end of the last interval, with one
	// decimal.
	ShowLast = "last"
	// ShowWaits: acquisitions of a lock from three totals, Key+".acquired",
	// Key+".waited" and Key+".wait_s" (seconds): "N taken, M waited (P%),
	// X ms average"; shown when any were taken.
	ShowWaits = "waits"
)

// How reports draw a series (Series.Layout).
const (
	// LayoutCounters (also the default): the leading counters per second
	// on a log scale, ranked by Priority then by mean rate; the _pct
	// values on their own chart; every counter's total in a table.
	LayoutCounters = "counters"
	// LayoutHost: a host's CPU split stacked to 100%, disk throughput and
	// utilisation per device, run queue, then the counters' totals (the
	// keys the os collector writes: cpu.*_pct, disk.DEV.read_mb, ...).
	LayoutHost = "host"
)

// Point is one interval of a Series.
type Point struct {
	// Seq is the interval's seq in intervals[].
	Seq   int     `json:"seq"`
	Phase string  `json:"phase"`
	T     float64 `json:"t"`
	// Seconds is the time between the two samples the rates come from.
	Seconds float64 `json:"seconds"`
	// Span is how many of the run's intervals the point covers, ending
	// with Seq, when more than one (a boundary that was not sampled);
	// 0 is one.
	Span int `json:"span,omitempty"`
	// Rates maps counter names to their per-second rate in the interval.
	Rates map[string]float64 `json:"rates"`
	// Values are gauges and derived figures (percentages, sizes, averages)
	// at the end of the interval; the unit ends the name (_pct, _mb, _ms).
	Values map[string]float64 `json:"values,omitempty"`
}

// DescribesClientHost is what a series of the harness's own host says it
// describes (Series.Describes): the os collector reading the local /proc.
const DescribesClientHost = "client host"

// ClientHostSide says whether a series describes the host the harness ran
// on, rather than the database server every shard shares.
func (s *Series) ClientHostSide() bool { return s != nil && s.Describes == DescribesClientHost }
