#!/usr/bin/env bash
# scale.sh: issue 14's question of how many clients one dbharness process
# drives on this machine. It starts a private MariaDB server (its data in a
# temporary directory, its own port, a thread pool and max_connections above
# the largest client count, so that 10,000 connections cost threads only
# while they run a statement) and, for each client count, runs
#   - null (SELECT 1 as one transaction) and select-only tpcb, closed loop:
#     tps, the harness's CPU per transaction (summary.client_cpu_us_per_tx,
#     from getrusage) and its peak RSS (the child's ru_maxrss via
#     /usr/bin/time);
#   - the same open loop at a fixed RATE: the schedule lag (how late the
#     clients started their transactions against the schedule, p50/p99/max)
#     and whether the rate was kept.
# The server shares the 2 cores: read tps as the pair's, not the harness's.
#
#   bench/scale.sh                       (CLIENTS="1000 5000 10000" SECS=20 RATE=5000)
#   DRIVER=goroutine CLIENTS=1000 bench/scale.sh   (one goroutine per client)
#   BIN=/path/to/dbharness bench/scale.sh          (another build)
set -euo pipefail
cd "$(dirname "$0")/.."
CLIENTS=${CLIENTS:-"1000 5000 10000"}
SECS=${SECS:-20}
RATE=${RATE:-5000}
PORT=${PORT:-3399}
TMP=$(mktemp -d /tmp/dbh-scale.XXXXXX)
SOCK="$TMP/mysqld.sock"
cleanup() {
  if [[ -f $TMP/mariadbd.pid ]]; then kill "$(cat "$TMP/mariadbd.pid")" 2>/dev/null || true; sleep 2; fi
  rm -rf "$TMP"
}
trap cleanup EXIT
if [[ -n ${BIN:-} ]]; then cp "$BIN" "$TMP/dbharness"; else go build -o "$TMP/dbharness" ./cmd/dbharness; fi
drv=()
[[ -n ${DRIVER:-} ]] && drv=(--driver "$DRIVER")
me=$(id -un)
mariadb-install-db --no-defaults --datadir="$TMP/data" --user="$me" --auth-root-authentication-method=normal --skip-test-db >/dev/null
ulimit -n "$(ulimit -Hn)"
max=0; for n in $CLIENTS; do (( n > max )) && max=$n; done
/usr/sbin/mariadbd --no-defaults --datadir="$TMP/data" --user="$me" --bind-address=127.0.0.1 --port="$PORT" \
  --socket="$SOCK" --pid-file="$TMP/mariadbd.pid" --log-error="$TMP/error.log" --skip-log-bin \
  --innodb-buffer-pool-size=256M --max-connections=$((max + 100)) --thread-handling=pool-of-threads \
  --open-files-limit=$((max * 2 + 1000)) --table-open-cache=400 --back-log=4096 --max-prepared-stmt-count=1048576 &
for _ in $(seq 1 60); do mariadb -uroot -h127.0.0.1 -P"$PORT" -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 1; done
mariadb -uroot -h127.0.0.1 -P"$PORT" -e 'CREATE DATABASE test' >/dev/null
URL="mysql://root@127.0.0.1:$PORT/test"
"$TMP/dbharness" init tpcb --db "$URL" --scale 10 >/dev/null 2>&1

echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg); driver ${DRIVER:-default}; dbharness ${BIN:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}; MariaDB $(mariadb -uroot -h127.0.0.1 -P"$PORT" -Nse 'SELECT VERSION()') (thread pool) on this host, TCP; RATE=$RATE for open loop, ${SECS}s runs"
printf '%-12s %7s %-6s %10s %10s %8s %9s %8s %8s %8s\n' workload clients loop tps "cpu us/tx" "RSS MB" "extra s" "lag p50" "lag p99" "lag max"
one() { # label clients closed|open workload-args...; prints a row
  local label=$1 n=$2 mode=$3; shift 3
  local rate=()
  [[ $mode == open ]] && rate=(--rate "$RATE")
  if ! /usr/bin/time -f '%M %e' -o "$TMP/time" "$TMP/dbharness" run "$@" --db "$URL" -c "$n" -T "${SECS}s" "${rate[@]}" "${drv[@]}" \
    --progress 0 --collect none --no-save --no-doctor --json "$TMP/r.json" >"$TMP/out" 2>&1; then
    echo "$label $n $mode: failed: $(tail -1 "$TMP/out")"; return
  fi
  read -r rss wall <"$TMP/time"
  # shellcheck disable=SC2046
  printf '%-12s %7d %-6s %10.1f %10.1f %8.1f %9.1f %8s %8s %8s\n' "$label" "$n" "$mode" \
    $(jq -r '[.summary.tps, .summary.client_cpu_us_per_tx] | @tsv' "$TMP/r.json") "$(echo "$rss / 1024" | bc -l)" \
    "$(echo "$wall - $SECS" | bc -l)" $(jq -r '[.summary.lag_ms.p50 // "-", .summary.lag_ms.p99 // "-", .summary.lag_ms.max // "-"] | @tsv' "$TMP/r.json")
}
for n in $CLIENTS; do
  one null "$n" closed null
  one select-only "$n" closed tpcb --mix select-only
  one null "$n" open null
  one select-only "$n" open tpcb --mix select-only
done
echo "   load average after: $(cut -d' ' -f1-3 /proc/loadavg); server threads created: $(mariadb -uroot -h127.0.0.1 -P"$PORT" -Nse "SHOW GLOBAL STATUS LIKE 'Threads_created'" | cut -f2)"
