#!/usr/bin/env bash
# Rebuilds cmd/dbharness/default.pgo, the CPU profile that `go build
# ./cmd/dbharness` optimizes the binary with (profile-guided optimization:
# the Go toolchain reads default.pgo beside the main package by itself).
#
# It profiles the harness itself (DBHARNESS_CPUPROFILE) on the workloads
# whose client side is hottest: pgbench's scripts in both query modes over
# TCP and the Unix socket, the built-in tpcb and tpcc (server mode) on the
# local PostgreSQL, tpcb on MariaDB and on the embedded SQLite database,
# and a YCSB workload file; each runs a few seconds, so that no one of them
# outweighs the others, and the profiles are merged into one.
#
#   bench/pgo-profile.sh            (writes cmd/dbharness/default.pgo)
#
# It needs the local PostgreSQL (postgres@127.0.0.1, trust) and MariaDB
# (root@127.0.0.1, database test), and creates and drops its own databases
# (dbh_pgo_*) on PostgreSQL; on MariaDB it loads tpcb into `test`. The
# binary it profiles is built without a profile, so that the new one does
# not inherit the old one's inlining. Run it on a quiet machine; commit the
# profile with the change that made it necessary (a new hot path), and
# measure before and after (bench/script-vs-pgbench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
PGUSER=${PGUSER:-postgres}
SOCK=${SOCK:-/var/run/postgresql}
PG="postgres://$PGUSER@127.0.0.1:5432"
TMP=$(mktemp -d)
DBS="dbh_pgo_scripts dbh_pgo_tpcb dbh_pgo_tpcc dbh_pgo_ycsb"
cleanup() {
  for d in $DBS; do psql -q -h 127.0.0.1 -U "$PGUSER" -d postgres -c "DROP DATABASE IF EXISTS $d WITH (FORCE)" >/dev/null 2>&1 || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT

go build -pgo=off -o "$TMP/dbharness" ./cmd/dbharness
bin="$TMP/dbharness"
# quietly runs a command and shows its output only when it fails.
quietly() { "$@" >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; exit 1; }; }
for d in $DBS; do
  psql -q -h 127.0.0.1 -U "$PGUSER" -d postgres -c "DROP DATABASE IF EXISTS $d WITH (FORCE)" -c "CREATE DATABASE $d" >/dev/null
done
quietly env PGSSLMODE=disable pgbench -i -s 10 -q -h 127.0.0.1 -U "$PGUSER" dbh_pgo_scripts
quietly "$bin" init tpcb --scale 10 --db "$PG/dbh_pgo_tpcb"
quietly "$bin" init tpcc --warehouses 1 --db "$PG/dbh_pgo_tpcc"
quietly "$bin" init examples/ycsb-a.yaml --scale 10 --db "$PG/dbh_pgo_ycsb"
quietly "$bin" init tpcb --scale 1 --db "mysql://root@127.0.0.1:3306/test"
export XDG_DATA_HOME="$TMP/home" # the embedded database goes here, not into ~
quietly "$bin" init tpcb

quiet=(--collect none --no-save --no-doctor --progress 0)
tcp="$PG/dbh_pgo_scripts?sslmode=disable"
sock="postgres://$PGUSER@/dbh_pgo_scripts?host=$SOCK"
n=0
prof() {
  n=$((n + 1))
  echo "profile $n: $*"
  DBHARNESS_CPUPROFILE="$TMP/$n.pprof" "$bin" "$@" "${quiet[@]}" >"$TMP/$n.log" 2>&1 || { cat "$TMP/$n.log" >&2; exit 1; }
}
prof run --script examples/tpcb-like.sql -M prepared -s 10 -c 8 -t 3000 --db "$tcp"
prof run --script examples/tpcb-like.sql -M simple -s 10 -c 8 -t 3000 --db "$sock"
prof run --script examples/select.sql -M prepared -s 10 -c 8 -t 30000 --db "$sock"
prof run --script examples/select.sql -M simple -s 10 -c 8 -t 30000 --db "$tcp"
prof run tpcb --duration 5s --clients 8 --db "$PG/dbh_pgo_tpcb"
prof run tpcc --mode server --duration 5s --clients 4 --db "$PG/dbh_pgo_tpcc"
prof run examples/ycsb-a.yaml --duration 5s --clients 8 --db "$PG/dbh_pgo_ycsb"
prof run tpcb --duration 5s --clients 8 --db "mysql://root@127.0.0.1:3306/test"
prof run tpcb --duration 2s --clients 4
go tool pprof -proto "$TMP"/*.pprof >"$TMP/merged.pprof" 2>/dev/null
mv "$TMP/merged.pprof" cmd/dbharness/default.pgo
echo "wrote cmd/dbharness/default.pgo ($(wc -c <cmd/dbharness/default.pgo) bytes) from $n profiles"
