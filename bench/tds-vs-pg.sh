#!/usr/bin/env bash
# What the TDS path costs: on one Babelfish server, the same work over SQL
# Server's protocol (dbharness's sqlserver engine, go-mssqldb) and over
# PostgreSQL's (dbharness's postgres engine, pgx), as fixed work in
# alternating pairs (bench/pairs: wall and CPU time from the OS, the CPU of
# the children it waited for). TLS is off on both sides (encrypt=disable,
# sslmode=disable), both log in as the same role (dbharness), over TCP to
# 127.0.0.1.
#
#  - select-only: `run tpcb --mix select-only` on the very same tables: init
#    tpcb over TDS makes them in a T-SQL database DB, which Babelfish keeps
#    as the schema DB_dbo of its PostgreSQL database babelfish_db; the
#    PostgreSQL side reads that schema (search_path). Against the TDS side,
#    the postgres engine on the goroutine driver (as SQL Server runs) and on
#    its default, the event loop.
#  - inserts: each (key, rows per commit x rows per statement) cell of
#    bench/inserts-matrix.sh, as fixed work (--rows-per-client), into a table
#    made by init inserts on each side (the TDS side's in DB_dbo, the
#    PostgreSQL side's in the schema DB_pg), so each protocol inserts the
#    same rows into a table of the same shape on the same server.
#
# Each cell runs twice: once doing almost no work (one transaction per
# client, or one commit's rows), which is the fixed cost of a run (the
# process, its connections, and Babelfish's first statements on a new
# session, over a second here), then the fixed work. Each prints the ratio
# TDS/PostgreSQL (above 1: the TDS path is slower or dearer) with its
# spread; the second also the marginal client CPU per transaction (or per
# row) and throughput of each side, the first run's medians taken off.
#
#   bench/tds-vs-pg.sh                     (PAIRS=5 CLIENTS=8 TX=1500 ROWS=1000 KEYS=serial CELLS="1x1 100x10")
#   SECTIONS=select bench/tds-vs-pg.sh
#   KEYS="serial uuid-random partitioned" CELLS="1x1 10x1 10x10 100x100" bench/tds-vs-pg.sh
#
# The server: Babelfish's start.sh (../shared/babelfish) on TDS_PORT and
# PG_PORT (14330 and 54990 by default), login dbharness/dbharness.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-5}
CLIENTS=${CLIENTS:-8}
TX=${TX:-1500}
ROWS=${ROWS:-1000}
PREFILL=${PREFILL:-10000}
KEYS=${KEYS:-serial}
CELLS=${CELLS:-"1x1 100x10"}
SECTIONS=${SECTIONS:-"select inserts"}
HOST=${HOST:-127.0.0.1}
TDS_PORT=${TDS_PORT:-14330}
PG_PORT=${PG_PORT:-54990}
DB=${DBH_BENCH_DB:-dbh_tds_vs_pg}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

go build -o "$TMP/dbharness" ./cmd/dbharness
go build -o "$TMP/pairs" ./bench/pairs
go build -o "$TMP/baremssql" ./bench/baremssql
TDS="sqlserver://dbharness:dbharness@$HOST:$TDS_PORT?database=$DB&encrypt=disable"
PGBASE="postgres://dbharness:dbharness@$HOST:$PG_PORT/babelfish_db?sslmode=disable"
"$TMP/baremssql" -db "sqlserver://dbharness:dbharness@$HOST:$TDS_PORT?database=master&encrypt=disable" \
	-exec "IF DB_ID('$DB') IS NULL CREATE DATABASE $DB"
PGPASSWORD=dbharness psql -q -h "$HOST" -p "$PG_PORT" -U dbharness -d babelfish_db -c "CREATE SCHEMA IF NOT EXISTS ${DB}_pg"
DBH="$TMP/dbharness"
RUN="--collect none --no-save --no-doctor --progress 0"

# summarise UNITS [FIXED]: echoes the pairs output on stdin and writes each
# side's medians to $TMP/medians; with FIXED (the medians of the same
# commands doing almost no work), the marginal cost per unit (marginal.sh).
. bench/marginal.sh
summarise() {
	tee "$TMP/out" | grep -v '^RESULT'
	awk -f bench/pair-medians.awk "$TMP/out" >"$TMP/medians"
	if [ -n "${2:-}" ]; then marginal "$1" "$2" "$TMP/medians"; fi
}

echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); dbharness $(git rev-parse --short HEAD 2>/dev/null || echo '?'); $("$DBH" run tpcb --mix select-only -t 1 --db "$TDS" $RUN 2>/dev/null | grep -o 'on babelfish [^ ]*' | head -1)"

if [[ " $SECTIONS " == *" select "* ]]; then
	"$DBH" init tpcb --scale 1 --db "$TDS" >/dev/null
	PG="$PGBASE&search_path=${DB}_dbo"
	# A first run on each side, unmeasured: Babelfish's first statements on
	# a session plan and cache (over a second on this host).
	"$DBH" run tpcb --mix select-only -c "$CLIENTS" -t 50 --db "$TDS" $RUN >/dev/null
	"$DBH" run tpcb --mix select-only -c "$CLIENTS" -t 50 --db "$PG" $RUN >/dev/null
	for driver in goroutine loop; do
		for tx in 1 "$TX"; do
			"$TMP/pairs" -n "$PAIRS" -name-a pg-$driver -name-b tds \
				-title "== select-only, the same tables: $CLIENTS clients x $tx transactions; postgres engine on the $driver driver (A) against sqlserver (B); unit = a transaction" \
				-a "$DBH run tpcb --mix select-only -c $CLIENTS -t $tx --driver $driver --db '$PG' $RUN" \
				-b "$DBH run tpcb --mix select-only -c $CLIENTS -t $tx --db '$TDS' $RUN" | summarise $((CLIENTS * (tx - 1))) ${fixed:-}
			fixed=$TMP/fixed && cp "$TMP/medians" "$fixed"
		done
		fixed=
	done
fi

if [[ " $SECTIONS " == *" inserts "* ]]; then
	PG="$PGBASE&search_path=${DB}_pg"
	for key in $KEYS; do
		"$DBH" init inserts --key "$key" --prefill "$PREFILL" --db "$TDS" >/dev/null
		"$DBH" init inserts --key "$key" --prefill "$PREFILL" --db "$PG" >/dev/null
		for cell in $CELLS; do
			batch=${cell%x*} rps=${cell#*x}
			rows=$(((ROWS + batch - 1) / batch * batch))
			fixed=
			for n in "$batch" "$rows"; do
				args="run inserts -c $CLIENTS --rows-per-client $n --batch $batch --rows-per-statement $rps $RUN"
				"$TMP/pairs" -n "$PAIRS" -name-a pg -name-b tds \
					-title "== inserts, key $key, $batch rows per commit x $rps per statement: $CLIENTS clients x $n rows; postgres engine on its default driver (A) against sqlserver (B); unit = a row" \
					-a "$DBH $args --db '$PG'" -b "$DBH $args --db '$TDS'" | summarise $((CLIENTS * (n - batch))) ${fixed:-}
				fixed=$TMP/fixed && cp "$TMP/medians" "$fixed"
			done
		done
	done
fi
