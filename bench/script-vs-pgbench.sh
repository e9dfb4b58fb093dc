#!/usr/bin/env bash
# The same pgbench scripts through `pgbench -f` and `dbharness run --script`
# on one local PostgreSQL database, as bench/vs-pgbench.sh compares the
# built-in mixes: fixed work ($CLIENTS clients x $TX transactions each), in
# $PAIRS alternating pairs (bench/pairs), wall and CPU time from the OS,
# over TCP without TLS and over the Unix socket, in pgbench's default query
# mode (simple) and in prepared mode. Each line prints the median ratio
# dbharness/pgbench and its spread; below 1 means dbharness is faster or
# cheaper.
#
#   bench/script-vs-pgbench.sh                  (TX=10000 PAIRS=5 CLIENTS=8)
#   MODES=prepared TRANSPORTS=socket bench/script-vs-pgbench.sh
#   SCRIPTS=tpcb-like TX=2000 bench/script-vs-pgbench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CLIENTS=${CLIENTS:-8}
TX=${TX:-10000}
PAIRS=${PAIRS:-5}
MODES=${MODES:-"simple prepared"}
TRANSPORTS=${TRANSPORTS:-"tcp socket"}
SCRIPTS=${SCRIPTS:-"select-only tpcb-like"}
DB=${DBH_BENCH_DB:-dbh_script_bench}
PGUSER=${PGUSER:-postgres}
SOCK=${SOCK:-/var/run/postgresql}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

go build -o "$TMP/dbharness" ./cmd/dbharness
go build -o "$TMP/pairs" ./bench/pairs
psql -q -h 127.0.0.1 -U "$PGUSER" -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" 2>/dev/null
PGSSLMODE=disable pgbench -i -s 10 -q -h 127.0.0.1 -U "$PGUSER" "$DB" >/dev/null 2>&1

# The scripts that ship with dbharness (examples/), the same for both tools.
cp examples/select.sql "$TMP/select-only.sql"
cp examples/tpcb-like.sql "$TMP/tpcb-like.sql"

echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores; $(pgbench --version); dbharness $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
for s in $SCRIPTS; do
  for mode in $MODES; do
    for tr in $TRANSPORTS; do
      case $tr in
        tcp) pg="PGSSLMODE=disable pgbench -h 127.0.0.1"; url="postgres://$PGUSER@127.0.0.1:5432/$DB?sslmode=disable" ;;
        socket) pg="pgbench -h $SOCK"; url="postgres://$PGUSER@/$DB?host=$SOCK" ;;
        *) echo "unknown transport $tr" >&2; exit 2 ;;
      esac
      "$TMP/pairs" -n "$PAIRS" -name-a pgbench -name-b dbharness \
        -title "== $s.sql, -M $mode, over $tr: $CLIENTS clients x $TX transactions" \
        -a "$pg -U $PGUSER -n -M $mode -s 10 -f $TMP/$s.sql -c $CLIENTS -j 2 -t $TX $DB" \
        -b "$TMP/dbharness run --script $TMP/$s.sql -M $mode -s 10 -c $CLIENTS -t $TX --collect none --no-save --no-doctor --progress 0 --db '$url'"
      psql -q -h 127.0.0.1 -U "$PGUSER" -d "$DB" -c "TRUNCATE pgbench_history" >/dev/null
    done
  done
done
