#!/usr/bin/env bash
# The concurrent-inserts comparison: every key strategy x rows per commit
# (1, 2, 10, 100) x rows per statement (1, 2) at 8 clients on PostgreSQL,
# each cell on a freshly initialised table (with a prefill, so the b-tree is
# not empty), then one table of rows/s and one of WAL bytes per row.
#
# usage: bench/inserts-matrix.sh [--db URL] [--duration SECONDS] [--clients N] [--prefill ROWS]
#        [--keys "serial uuid-random ..."] [--cells "1x1 10x1 ..."]
# defaults: the database dbh_inserts_matrix on the local server (created if
# missing), 5 s per cell, 8 clients, 100000 prefill rows.
#
# Cells: batch 1 has no 1x2 cell, since a statement of 2 rows cannot fit in a
# commit of 1 row (--rows-per-statement is at most --batch), so there are 7
# columns, not 4 x 2. Runs are made with --collect physical --physical
# detailed only: the interval collectors' sampling is kept out of the
# comparison, and the physical measurement runs before the clients start and
# after they stop, outside the measured phase. It gives the primary key
# index's size, leaf density and leaf fragmentation after each cell's run
# (on MariaDB the fragmentation is null: InnoDB cannot say).
#
# The machine is shared and noisy: read the table for its large differences
# (factors), not for the last few percent. WAL bytes are the server's whole
# WAL (other sessions' writes count too).
set -euo pipefail
DB="postgres://postgres@127.0.0.1:5432/dbh_inserts_matrix"
DUR=5
CLIENTS=8
PREFILL=100000
KEYS="serial uuid-random uuid-ordered partitioned random-bigint"
CELLS="1x1 2x1 2x2 10x1 10x2 100x1 100x2" # batch x rows-per-statement
while [ $# -gt 0 ]; do
	case "$1" in
	--db) DB="$2"; shift 2 ;;
	--duration) DUR="$2"; shift 2 ;;
	--clients) CLIENTS="$2"; shift 2 ;;
	--prefill) PREFILL="$2"; shift 2 ;;
	--keys) KEYS="$2"; shift 2 ;;
	--cells) CELLS="$2"; shift 2 ;;
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

declare -A ROWS WAL SIZE BPR DENS FRAG
for key in $KEYS; do
	for cell in $CELLS; do
		batch=${cell%x*} rps=${cell#*x}
		# A fresh SQLite file per cell: a table dropped and made again in
		# the same file takes the freed pages back in descending order,
		# which reads as fragmentation the keys did not cause.
		case "$DB" in sqlite://*) rm -f "${DB#sqlite://}" "${DB#sqlite://}-wal" "${DB#sqlite://}-shm"; : >"${DB#sqlite://}" ;; esac
		"$BIN" init inserts --db "$DB" --key "$key" --prefill "$PREFILL" >/dev/null 2>"$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
		"$BIN" run inserts --db "$DB" -c "$CLIENTS" -T "$DUR" -P 0 --no-save --no-doctor --collect physical --physical detailed --batch "$batch" --rows-per-statement "$rps" \
			--json "$TMP/run.json" >/dev/null 2>"$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
		ROWS[$key,$cell]=$(jq -r '.summary.rows_per_s // 0 | floor' "$TMP/run.json")
		WAL[$key,$cell]=$(jq -r '.summary.wal_bytes_per_row // 0 | floor' "$TMP/run.json")
		# The primary key's b-tree after the run (on SQLite, the table's
		# own b-tree when it is ordered by the key).
		pk='[.physical.after[] | select(.primary)][0]'
		SIZE[$key,$cell]=$(jq -r "$pk.size_bytes // null | if . == null then \"-\" else (. / 1024 | floor) end" "$TMP/run.json")
		# Bytes of index per row in the table (the prefill and the run's
		# rows): the cells insert different numbers of rows.
		BPR[$key,$cell]=$(jq -r "($pk.size_bytes // null) as \$s | (.dataset.rows_at_start + .summary.rows_committed) as \$n | if \$s == null or \$n == 0 then \"-\" else (\$s / \$n | round) end" "$TMP/run.json")
		DENS[$key,$cell]=$(jq -r "$pk.leaf_density_pct // null | if . == null then \"-\" else (. * 10 | round / 10) end" "$TMP/run.json")
		FRAG[$key,$cell]=$(jq -r "$pk.leaf_fragmentation_pct // null | if . == null then \"-\" else (. * 10 | round / 10) end" "$TMP/run.json")
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
table "primary key index KiB after the run" SIZE
table "primary key index bytes per row after the run" BPR
table "primary key leaf density % after the run" DENS
table "primary key leaf fragmentation % after the run" FRAG
