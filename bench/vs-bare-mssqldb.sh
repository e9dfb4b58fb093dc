#!/usr/bin/env bash
# dbharness against the smallest go-mssqldb client (bench/baremssql): the
# same select-only work on one SQL Server or Babelfish database, -c clients
# x -t point selects (SELECT abalance FROM pgbench_accounts WHERE aid = @p1,
# a uniformly random aid, prepared, through database/sql), as fixed work in
# alternating pairs (bench/pairs: wall and CPU time from the OS). Both use
# go-mssqldb v1 with the same URL (TLS off: encrypt=disable), so the ratio
# dbharness/bare is what the harness adds: its per-transaction bookkeeping
# (the latency histogram, the interval series), its connections' session
# id and the run's set-up.
#
# Each size runs twice: -t 1 (the fixed cost of a run: the process, its
# connections, Babelfish's first statement on a new session, over a second
# here), then -t TX; the marginal client CPU per transaction takes the
# first's medians off the second's.
#
#   bench/vs-bare-mssqldb.sh                    (PAIRS=5 CLIENTS=8 TX=2000)
#   URL='sqlserver://u:p@host:1433?database=bench&encrypt=disable' bench/vs-bare-mssqldb.sh
#
# Without URL: the Babelfish of ../shared/babelfish on TDS_PORT (14330), in
# the database DBH_BENCH_DB (created, then loaded with init tpcb --scale 1).
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-5}
CLIENTS=${CLIENTS:-8}
TX=${TX:-2000}
TDS_PORT=${TDS_PORT:-14330}
DB=${DBH_BENCH_DB:-dbh_vs_bare_mssqldb}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

go build -o "$TMP/dbharness" ./cmd/dbharness
go build -o "$TMP/pairs" ./bench/pairs
go build -o "$TMP/baremssql" ./bench/baremssql
if [ -z "${URL:-}" ]; then
	"$TMP/baremssql" -db "sqlserver://dbharness:dbharness@127.0.0.1:$TDS_PORT?database=master&encrypt=disable" \
		-exec "IF DB_ID('$DB') IS NULL CREATE DATABASE $DB"
	URL="sqlserver://dbharness:dbharness@127.0.0.1:$TDS_PORT?database=$DB&encrypt=disable"
fi
"$TMP/dbharness" init tpcb --scale 1 --db "$URL" >/dev/null

echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); dbharness $(git rev-parse --short HEAD 2>/dev/null || echo '?'); go-mssqldb $(go list -m -f '{{.Version}}' github.com/microsoft/go-mssqldb)"
. bench/marginal.sh
for tx in 1 "$TX"; do
	"$TMP/pairs" -n "$PAIRS" -name-a bare -name-b dbharness \
		-title "== select-only: $CLIENTS clients x $tx point selects; bare go-mssqldb (A) against dbharness (B); unit = a transaction" \
		-a "$TMP/baremssql -db '$URL' -c $CLIENTS -t $tx -s 1" \
		-b "$TMP/dbharness run tpcb --mix select-only -c $CLIENTS -t $tx --collect none --no-save --no-doctor --progress 0 --db '$URL'" | tee "$TMP/out" | grep -v '^RESULT'
	awk -f bench/pair-medians.awk "$TMP/out" >"$TMP/medians.$tx"
done
marginal $((CLIENTS * (TX - 1))) "$TMP/medians.1" "$TMP/medians.$TX"
