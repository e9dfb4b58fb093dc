#!/usr/bin/env bash
# shards-vs-one.sh: issue 14's check of sharded runs. Three shards of 4
# clients (run --shard I/3 --group G, started together through a results
# store on PostgreSQL, read back merged with `show G`) against one process
# of 12 clients, the same total, on select-only tpcb over the Unix socket;
# the pairs alternate which side goes first. The merged tps and p99 should
# agree with one process's within the run-to-run spread, which it prints:
# the mean and the range of each side over the pairs.
#
#   bench/shards-vs-one.sh                 (PAIRS=3 SECONDS_=10 LOOPS=)
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${PG:-postgres://postgres@127.0.0.1:5432}
SOCK=${SOCK:-/var/run/postgresql}
DB=${DB:-dbh_shards_bench}
STORE_DB=${STORE_DB:-dbh_shards_bench_store}
PAIRS=${PAIRS:-3}
SECS=${SECONDS_:-10}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/dbharness" ./cmd/dbharness
for d in "$DB" "$STORE_DB"; do
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $d WITH (FORCE)" -c "CREATE DATABASE $d" >/dev/null
done
"$TMP/dbharness" init tpcb --db "$PG/$DB?sslmode=disable" --scale 10 >/dev/null 2>&1
URL="postgres://postgres@/$DB?host=$SOCK"
STORE="$PG/$STORE_DB?sslmode=disable"
common=(run tpcb --db "$URL" --mix select-only -c 12 -T "${SECS}s" --progress 0 --collect none --results "$STORE")
# LOOPS=N gives every process N event loops instead of the default (one per
# processor, the server being on this host).
[ -n "${LOOPS:-}" ] && common+=(--loops "$LOOPS")

one() {
  "$TMP/dbharness" "${common[@]}" --json "$TMP/one.json" >/dev/null
  jq -r '"\(.summary.tps) \(.summary.latency_ms.p99)"' "$TMP/one.json"
}
shards() {
  local g="bench-$1-$RANDOM"
  for i in 0 1 2; do
    "$TMP/dbharness" "${common[@]}" --shard "$i/3" --group "$g" >/dev/null &
  done
  wait
  "$TMP/dbharness" show "$g" --json --results "$STORE" | jq -r '"\(.summary.tps) \(.summary.latency_ms.p99) \(.group.max_clock_offset_ms)"'
}

echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); dbharness $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "== select-only tpcb, scale 10, ${SECS}s: one process of 12 clients (A) against 3 shards of 4 (B), merged"
: >"$TMP/a"; : >"$TMP/b"
for p in $(seq 1 "$PAIRS"); do
  if (( p % 2 )); then a=$(one); b=$(shards "$p"); else b=$(shards "$p"); a=$(one); fi
  echo "$a" >>"$TMP/a"; echo "$b" >>"$TMP/b"
  printf 'pair %d: A tps %10.1f p99 %7.3f ms | B tps %10.1f p99 %7.3f ms (largest clock offset %s ms)\n' "$p" $a $b
done
summary() { awk -v name="$1" '{t+=$1; p+=$2; if(NR==1||$1<tl)tl=$1; if($1>th)th=$1; if(NR==1||$2<pl)pl=$2; if($2>ph)ph=$2}
  END {printf "%s: tps mean %.1f (range %.1f-%.1f), p99 mean %.3f ms (range %.3f-%.3f)\n", name, t/NR, tl, th, p/NR, pl, ph}' "$2"; }
summary "A one process of 12" "$TMP/a"
summary "B 3 shards of 4    " "$TMP/b"
echo "   load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
for d in "$DB" "$STORE_DB"; do psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $d WITH (FORCE)" >/dev/null; done
