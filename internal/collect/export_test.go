package collect

// PerfComplaint is perfComplaint, for the tests.
var PerfComplaint = perfComplaint

// ParseProcStat is parseProcStat, for the tests.
var ParseProcStat = parseProcStat
