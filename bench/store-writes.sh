#!/usr/bin/env bash
# store-writes.sh: what one interval costs a run in each kind of results
# store, an SQLite file and a PostgreSQL database (the local server, in a
# database named after $DBHARNESS_TEST_DB_PREFIX as the tests name theirs):
# BenchmarkStoreWrites in internal/results writes an interval's row with a
# realistic histogram, by one writer and by GOMAXPROCS writers of their own
# runs at once, COUNT times over for the spread.
#
#   bench/store-writes.sh                 (COUNT=5 N=2000)
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${COUNT:-5}
N=${N:-2000}
go test ./internal/results -run '^$' -bench 'StoreWrites' -benchtime "${N}x" -count "$COUNT" -benchmem
