package collect

// PerfComplaint is perfComplaint, for the tests.
var PerfComplaint = perfComplaint
