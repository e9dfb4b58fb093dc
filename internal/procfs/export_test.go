package procfs

// ParseProcStat is parseProcStat, for the tests.
var ParseProcStat = parseProcStat
