#!/usr/bin/env bash
# dbharness vs pgbench on the local PostgreSQL, side by side in one run:
#   1. select-only tps: pgbench -S -M prepared -c 8 -j 2 against
#      dbharness run tpcb --mix select-only --clients 8, alternately, three
#      pairs of equal duration, over TCP and again over the Unix socket;
#      prints the ratio of median tps (target >= 1.0x).
#   2. init time: dbharness init tpcb --scale 20 vs pgbench -i -s 20.
#   3. peak RSS of a 64-client run and RSS over time (target < 100 MB, flat).
# Usage: bench/vs-pgbench.sh [seconds per run, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${1:-20}
PAIRS=${PAIRS:-3}
DB=dbh_bench
PGUSER=${PGUSER:-postgres}
SOCK=${SOCK:-/var/run/postgresql}
BIN=${BIN:-./dbharness}
go build -o "$BIN" ./cmd/dbharness

psql -q -h 127.0.0.1 -U "$PGUSER" -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB"
TCP_URL="postgres://$PGUSER@127.0.0.1:5432/$DB"
SOCK_URL="postgres://$PGUSER@/$DB?host=$SOCK"

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a/b}'; }

echo "== init: dbharness init tpcb --scale 20 vs pgbench -i -s 20 (2 each, alternating)"
di=(); pi=()
for i in 1 2; do
  s=$(date +%s.%N); "$BIN" init tpcb --db "$TCP_URL" --scale 20 >/dev/null 2>&1; e=$(date +%s.%N)
  di+=("$(awk -v s="$s" -v e="$e" 'BEGIN{print e-s}')")
  s=$(date +%s.%N); pgbench -q -i -s 20 -h 127.0.0.1 -U "$PGUSER" "$DB" >/dev/null 2>&1; e=$(date +%s.%N)
  pi+=("$(awk -v s="$s" -v e="$e" 'BEGIN{print e-s}')")
done
dmed=$(printf '%s\n' "${di[@]}" | median); pmed=$(printf '%s\n' "${pi[@]}" | median)
printf "init seconds  dbharness: %s  pgbench: %s  -> dbharness takes %sx pgbench's time (target < 1)\n" \
  "$(echo "${di[@]}")" "$(echo "${pi[@]}")" "$(ratio "$dmed" "$pmed")"

echo "== loading scale 10 for select-only (dbharness loads, pgbench runs on it)"
"$BIN" init tpcb --db "$TCP_URL" --scale 10 >/dev/null 2>&1

pg_tps() { pgbench -S -M prepared -c 8 -j 2 -T "$DUR" -n "$@" "$DB" 2>/dev/null | awk '/^tps = /{print $3}'; }
dbh_tps() {
  "$BIN" run tpcb --db "$1" --mix select-only --clients 8 --duration "$DUR" --progress 0 --no-save --json - 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["tps"])'
}
compare() { # name pgbench-args... -- dbharness-url
  local name=$1; shift
  local url=${!#}; local args=("${@:1:$#-2}")
  local p=() d=()
  for i in $(seq 1 "$PAIRS"); do
    p+=("$(pg_tps "${args[@]}")")
    d+=("$(dbh_tps "$url")")
    printf "  pair %d: pgbench %.0f tps, dbharness %.0f tps\n" "$i" "${p[-1]}" "${d[-1]}"
  done
  local pm dm; pm=$(printf '%s\n' "${p[@]}" | median); dm=$(printf '%s\n' "${d[@]}" | median)
  printf "%s: median pgbench %.0f tps, dbharness %.0f tps -> ratio %s (target >= 1.0)\n" "$name" "$pm" "$dm" "$(ratio "$dm" "$pm")"
}
echo "== select-only over TCP, $PAIRS pairs of ${DUR}s"
compare TCP -h 127.0.0.1 -U "$PGUSER" -- "$TCP_URL"
echo "== select-only over the Unix socket, $PAIRS pairs of ${DUR}s"
compare socket -U "$PGUSER" -- "$SOCK_URL"

echo "== memory: 64 clients, select-only, ${DUR}s"
"$BIN" run tpcb --db "$TCP_URL" --mix select-only --clients 64 --duration "$DUR" --progress 0 --no-save >/dev/null 2>&1 &
pid=$!
rss=()
while kill -0 "$pid" 2>/dev/null; do
  r=$(awk '/^VmRSS/{print $2}' /proc/$pid/status 2>/dev/null || true)
  [ -n "$r" ] && rss+=("$r")
  sleep 1
done
wait "$pid" || true
n=${#rss[@]}
peak=$(printf '%s\n' "${rss[@]}" | sort -n | tail -1)
q=$(( n / 4 ))
printf "RSS MB over the run (every 1 s): %s\n" "$(printf '%s\n' "${rss[@]}" | awk '{printf "%.0f ", $1/1024}')"
printf "peak RSS %.1f MB (target < 100); first-quarter max %.1f MB, last-quarter max %.1f MB\n" \
  "$(awk -v p="$peak" 'BEGIN{print p/1024}')" \
  "$(printf '%s\n' "${rss[@]:0:$((q>0?q:1))}" | sort -n | tail -1 | awk '{print $1/1024}')" \
  "$(printf '%s\n' "${rss[@]:$((n-q))}" | sort -n | tail -1 | awk '{print $1/1024}')"
