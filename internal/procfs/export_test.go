package procfs

// ParseProcStat is parseProcStat, for the tests.
var ParseProcStat = parseProcStat

// ParseProc and ParseHostTicks are parseProc and parseHostTicks, for the
// tests.
var (
	ParseProc      = parseProc
	ParseHostTicks = parseHostTicks
)

// ReadProc is readProc, for the tests.
var ReadProc = readProc
