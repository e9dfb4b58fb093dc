#!/usr/bin/env bash
# dbharness against pgbench on the local PostgreSQL, side by side in one run.
#
# Fixed work, so that wall time is throughput: 8 clients x $TX transactions
# each (pgbench -c 8 -j 2 -t $TX -M prepared against dbharness run tpcb
# --clients 8 --transactions $TX; tpcb-like, about 20 times slower, runs
# $TX_TPCB each), in $PAIRS alternating pairs (bench/pairs),
# for select-only and tpcb-like, over three transports with the same
# setting on both sides:
#   tcp    127.0.0.1, TLS off (sslmode=disable)
#   tls    127.0.0.1, TLS on  (sslmode=require)
#   socket the Unix socket
# CPU is the OS's: the rusage of each child (user + system). Each line
# prints the median ratio dbharness/pgbench of wall time and of CPU time,
# and their spread over the pairs; below 1 means dbharness is faster or
# cheaper. dbharness runs with --collect none (the evidence's cost is
# bench/collect-overhead.sh's subject) and its default driver.
#
# Then: init time (dbharness init tpcb --scale 20 against pgbench -i -s 20)
# and the RSS of a 64-client run.
#
# Usage: bench/vs-pgbench.sh            (TX=20000 TX_TPCB=5000 PAIRS=5 by default)
#        TRANSPORTS="socket tcp" MIXES=select-only DRIVER=goroutine bench/vs-pgbench.sh
#        LOOPS=2 NOEXTRA=1 bench/vs-pgbench.sh  (two event loops; no init or memory runs)
set -euo pipefail
cd "$(dirname "$0")/.."
TX=${TX:-20000}
TX_TPCB=${TX_TPCB:-5000}
PAIRS=${PAIRS:-5}
CLIENTS=${CLIENTS:-8}
TRANSPORTS=${TRANSPORTS:-"tcp tls socket"}
MIXES=${MIXES:-"select-only tpcb-like"}
DRIVER=${DRIVER:-}
LOOPS=${LOOPS:-}
DB=dbh_vs_pgbench
PGUSER=${PGUSER:-postgres}
SOCK=${SOCK:-/var/run/postgresql}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
BIN=$TMP/dbharness
go build -o "$BIN" ./cmd/dbharness
go build -o "$TMP/pairs" ./bench/pairs

echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores, $(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo)"
echo "   $(pgbench --version), $(psql -h 127.0.0.1 -U "$PGUSER" -d postgres -Atc 'select version()' | cut -d, -f1), dbharness $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
psql -q -h 127.0.0.1 -U "$PGUSER" -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" 2>/dev/null
"$BIN" init tpcb --db "postgres://$PGUSER@127.0.0.1:5432/$DB?sslmode=disable" --scale 10 >/dev/null 2>&1

drv=()
[ -n "$DRIVER" ] && drv=(--driver "$DRIVER")
[ -n "$LOOPS" ] && drv+=(--loops "$LOOPS")
for mix in $MIXES; do
  for tr in $TRANSPORTS; do
    case $tr in
      tcp) pg_conn="-h 127.0.0.1"; pg_env="PGSSLMODE=disable"; url="postgres://$PGUSER@127.0.0.1:5432/$DB?sslmode=disable" ;;
      tls) pg_conn="-h 127.0.0.1"; pg_env="PGSSLMODE=require"; url="postgres://$PGUSER@127.0.0.1:5432/$DB?sslmode=require" ;;
      socket) pg_conn="-h $SOCK"; pg_env=""; url="postgres://$PGUSER@/$DB?host=$SOCK" ;;
      *) echo "unknown transport $tr" >&2; exit 2 ;;
    esac
    case $mix in
      select-only) pg_mix="-S"; tx=$TX ;;
      tpcb-like) pg_mix=""; tx=$TX_TPCB ;;
      *) echo "unknown mix $mix" >&2; exit 2 ;;
    esac
    "$TMP/pairs" -n "$PAIRS" -name-a pgbench -name-b dbharness \
      -title "== $mix over $tr: $CLIENTS clients x $tx transactions, $PAIRS pairs" \
      -a "$pg_env pgbench -n $pg_mix -M prepared -c $CLIENTS -j 2 -t $tx $pg_conn -U $PGUSER $DB" \
      -b "$BIN run tpcb --db '$url' --mix $mix -c $CLIENTS -t $tx --collect none --no-save --no-doctor --progress 0 ${drv[*]}"
    # pgbench's tpcb-like writes history: keep the table small between mixes.
    psql -q -h 127.0.0.1 -U "$PGUSER" -d "$DB" -c "TRUNCATE pgbench_history" >/dev/null
  done
done

[ -n "${NOEXTRA:-}" ] && exit 0
echo "== init: dbharness init tpcb --scale 20 against pgbench -i -s 20"
"$TMP/pairs" -n 3 -name-a pgbench -name-b dbharness \
  -a "PGSSLMODE=disable pgbench -q -i -s 20 -h 127.0.0.1 -U $PGUSER $DB" \
  -b "$BIN init tpcb --db 'postgres://$PGUSER@127.0.0.1:5432/$DB?sslmode=disable' --scale 20"

echo "== memory: 64 clients, select-only, 20 s"
"$BIN" init tpcb --db "postgres://$PGUSER@127.0.0.1:5432/$DB?sslmode=disable" --scale 10 >/dev/null 2>&1
"$BIN" run tpcb --db "postgres://$PGUSER@/$DB?host=$SOCK" --mix select-only --clients 64 --duration 20 --progress 0 --no-save --no-doctor ${drv[*]} >/dev/null 2>&1 &
pid=$!
rss=()
while kill -0 "$pid" 2>/dev/null; do
  r=$(awk '/^VmRSS/{print $2}' /proc/$pid/status 2>/dev/null || true)
  [ -n "$r" ] && rss+=("$r")
  sleep 1
done
wait "$pid" || true
printf "RSS MB every second: %s\n" "$(printf '%s\n' "${rss[@]}" | awk '{printf "%.0f ", $1/1024}')"
printf "peak RSS %.1f MB (target < 50)\n" "$(printf '%s\n' "${rss[@]}" | sort -n | tail -1 | awk '{print $1/1024}')"
