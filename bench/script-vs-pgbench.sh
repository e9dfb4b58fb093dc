#!/usr/bin/env bash
# Runs the same pgbench scripts through `pgbench -f` and `dbharness run --script`
# on one local PostgreSQL database, side by side, and prints the tps ratios.
# The machine may be shared: read the ratios, not the absolute numbers.
#
#   bench/script-vs-pgbench.sh [clients] [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
CLIENTS=${1:-8}
SECS=${2:-10}
DB=${DBH_BENCH_DB:-dbh_cus_bench}
PGURL=${DBH_BENCH_PG:-postgres://postgres@127.0.0.1:5432}
URL="$PGURL/$DB"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

go build -o "$TMP/dbharness" ./cmd/dbharness
psql "$PGURL/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
pgbench -i -s 10 -q "$URL" >/dev/null 2>&1

cat > "$TMP/select-only.sql" <<'SQL'
\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SQL
cat > "$TMP/tpcb-like.sql" <<'SQL'
\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
SQL

printf "%-12s %12s %12s %8s\n" script pgbench_tps dbharness_tps ratio
for s in select-only tpcb-like; do
  p=$(pgbench -n -M prepared -s 10 -f "$TMP/$s.sql" -c "$CLIENTS" -j "$CLIENTS" -T "$SECS" "$URL" 2>/dev/null \
      | awk '/^tps = /{print $3; exit}')
  d=$("$TMP/dbharness" run --script "$TMP/$s.sql" --query-mode prepared -s 10 -c "$CLIENTS" -T "$SECS" -P 0 --no-save --db "$URL" --json - 2>/dev/null \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["tps"])')
  printf "%-12s %12.1f %12.1f %8.2f\n" "$s" "$p" "$d" "$(python3 -c "print($d/$p)")"
done
"$TMP/dbharness" check tpcb --db "$URL" | sed 's/^/  /'
