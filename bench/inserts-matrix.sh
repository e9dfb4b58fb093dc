#!/usr/bin/env bash
# The concurrent-inserts comparison: every key strategy x rows per commit
# (1, 2, 10, 100) x rows per statement (1, 2) at 8 clients on PostgreSQL,
# each cell on a freshly initialised table (with a prefill, so the b-tree is
# not empty), then one table of rows/s and one of WAL bytes per row.
#
# usage: bench/inserts-matrix.sh [--db URL] [--duration SECONDS] [--clients N] [--prefill ROWS]
# defaults: the database dbh_inserts_matrix on the local server (created if
# missing), 5 s per cell, 8 clients, 100000 prefill rows.
#
# Cells: batch 1 has no 1x2 cell, since a statement of 2 rows cannot fit in a
# commit of 1 row (--rows-per-statement is at most --batch), so there are 7
# columns, not 4 x 2. Runs are made with --collect none: the evidence
# collectors' sampling is kept out of the comparison.
#
# The machine is shared and noisy: read the table for its large differences
# (factors), not for the last few percent. WAL bytes are the server's whole
# WAL (other sessions' writes count too).
set -euo pipefail
DB="postgres://postgres@127.0.0.1:5432/dbh_inserts_matrix"
DUR=5
CLIENTS=8
PREFILL=100000
while [ $# -gt 0 ]; do
	case "$1" in
	--db) DB="$2"; shift 2 ;;
	--duration) DUR="$2"; shift 2 ;;
	--clients) CLIENTS="$2"; shift 2 ;;
	--prefill) PREFILL="$2"; shift 2 ;;
	*) echo "inserts-matrix.sh: unknown option $1; see the usage at the top of the script" >&2; exit 2 ;;
	esac
done
command -v jq >/dev/null || { echo "inserts-matrix.sh: needs jq" >&2; exit 1; }
cd "$(dirname "$0")/.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
BIN="$TMP/dbharness"
go build -o "$BIN" ./cmd/dbharness
if [ "$DB" = "postgres://postgres@127.0.0.1:5432/dbh_inserts_matrix" ]; then
	psql -h 127.0.0.1 -U postgres -d postgres -Atqc "SELECT 1 FROM pg_database WHERE datname = 'dbh_inserts_matrix'" | grep -q 1 ||
		psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE dbh_inserts_matrix"
fi

KEYS="serial uuid-random uuid-ordered partitioned random-bigint"
CELLS="1x1 2x1 2x2 10x1 10x2 100x1 100x2" # batch x rows-per-statement
declare -A ROWS WAL
for key in $KEYS; do
	for cell in $CELLS; do
		batch=${cell%x*} rps=${cell#*x}
		"$BIN" init inserts --db "$DB" --key "$key" --prefill "$PREFILL" >/dev/null 2>"$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
		"$BIN" run inserts --db "$DB" -c "$CLIENTS" -T "$DUR" -P 0 --no-save --collect none --batch "$batch" --rows-per-statement "$rps" \
			--json "$TMP/run.json" >/dev/null 2>"$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
		ROWS[$key,$cell]=$(jq -r '.summary.rows_per_s // 0 | floor' "$TMP/run.json")
		WAL[$key,$cell]=$(jq -r '.summary.wal_bytes_per_row // 0 | floor' "$TMP/run.json")
		errs=$(jq -r '.summary.errors' "$TMP/run.json")
		[ "$errs" = 0 ] || echo "note: $key batch $batch x $rps had $errs errors" >&2
		"$BIN" check inserts --db "$DB" >"$TMP/check" || { echo "check failed for $key $cell:" >&2; cat "$TMP/check" >&2; exit 1; }
		printf '%-14s batch %3s x %s per statement: %8s rows/s\n' "$key" "$batch" "$rps" "${ROWS[$key,$cell]}" >&2
	done
done

table() { # $1 title, $2 name of the array
	local -n A=$2
	echo
	echo "$1 ($CLIENTS clients, ${DUR}s per cell, prefill $PREFILL; columns are batch x rows-per-statement)"
	printf '%-14s' "key"
	for cell in $CELLS; do printf ' %9s' "$cell"; done
	echo
	for key in $KEYS; do
		printf '%-14s' "$key"
		for cell in $CELLS; do printf ' %9s' "${A[$key,$cell]}"; done
		echo
	done
}
table "rows/s" ROWS
table "WAL bytes per row" WAL
