#!/usr/bin/env bash
# collect-duty.sh: the evidence collectors' cost in throughput, inside one
# run of load, so that the drift between runs (on this 2-core machine the
# same fixed work varies by 10% from run to run) does not hide 1%.
#
# One dbharness run drives select-only with $CLIENTS clients over the Unix
# socket for $SECONDS_ON_LOAD seconds with --collect none. Beside it
# bench/collectcost -duty starts the steady-state collectors (os, server,
# waits: OS and server counters each second, pg_stat_activity every 100 ms,
# on the load's sessions as in a run), keeps them for $DUTY, stops them,
# waits $DUTY, and so on. Each on-window's throughput (the run's $INTERVAL
# intervals wholly inside it) is compared with the off-windows beside it;
# the mean ratio and its 95% interval are the collectors' cost.
#
# The collectors run in the load's process, as in a run: collectcost runs
# the load itself (through the same code as the binary) and the
# collectors beside it. SEPARATE=1 runs them in a process of their own
# instead, which adds that process's Go runtime to their cost. Each
# on-window opens and closes their connections (a run does that once).
#
#   bench/collect-duty.sh     (SECONDS_ON_LOAD=600 DUTY=2s INTERVAL=500ms CLIENTS=8)
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${PG:-postgres://postgres@127.0.0.1:5432}
SOCK=${SOCK:-/var/run/postgresql}
DB=${DB:-dbh_duty_bench}
SECONDS_ON_LOAD=${SECONDS_ON_LOAD:-600}
DUTY=${DUTY:-2s}
CLIENTS=${CLIENTS:-8}
INTERVAL=${INTERVAL:-500ms}
APP=dbh_duty_load
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/dbharness" ./cmd/dbharness
go build -o "$TMP/collectcost" ./bench/collectcost
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
"$TMP/dbharness" init tpcb --db "$PG/$DB?sslmode=disable" --scale 10 >/dev/null 2>&1

echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores; dbharness $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "== select-only, $CLIENTS clients, Unix socket, ${SECONDS_ON_LOAD}s; collectors (os,server,waits) on for $DUTY, off for $DUTY"
load=(run tpcb --db "postgres://postgres@/$DB?host=$SOCK&application_name=$APP" --mix select-only
  -c "$CLIENTS" -T "$((SECONDS_ON_LOAD + 10))s" --collect none --no-save --no-doctor --progress "$INTERVAL" --json "$TMP/run.json")
if [ -n "${SEPARATE:-}" ]; then
  echo "== the collectors in a process of their own"
  "$TMP/dbharness" "${load[@]}" >"$TMP/run.out" 2>&1 &
  pid=$!
  sleep 5
  "$TMP/collectcost" -db "postgres://postgres@/$DB?host=$SOCK" -app "$APP" -duty "$DUTY" -seconds "$SECONDS_ON_LOAD" -windows "$TMP/windows"
  if ! wait "$pid"; then
    cat "$TMP/run.out" >&2
    exit 1
  fi
else
  echo "== the collectors in the load's process"
  if ! "$TMP/collectcost" -db "postgres://postgres@/$DB?host=$SOCK" -app "$APP" -duty "$DUTY" -seconds "$SECONDS_ON_LOAD" \
    -windows "$TMP/windows" -load "${load[*]}" >"$TMP/run.out" 2>&1; then
    tail -20 "$TMP/run.out" >&2
    exit 1
  fi
  grep '^collectors on for' "$TMP/run.out"
fi
"$TMP/collectcost" -analyze "$TMP/run.json" -windows "$TMP/windows"
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null
