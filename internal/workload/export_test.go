package workload

// LoadTries is loadTries for the external tests (package workload_test,
// which may open databases through testdb).
const LoadTries = loadTries
