#!/usr/bin/env bash
# metrics-overhead.sh: what --metrics-addr costs a run while Prometheus
# scrapes it every second, measured as bench/vs-pgbench.sh measures
# dbharness against pgbench: fixed work (select-only, $CLIENTS clients x
# $TX transactions each, over the Unix socket), alternating pairs
# (bench/pairs, the order flips every pair), wall and CPU time (user +
# system) of each run from the OS. A runs without the endpoint, B with it;
# the wall ratio B/A is the throughput cost (the goal: within 1%), the CPU
# ratio the client's.
#
# One Prometheus (Debian's package; scripts/test.sh installs it) runs for
# the whole bench with its own configuration and storage, scraping
# 127.0.0.1:$PORT every second with native histograms on (the protobuf
# format), so both sides run beside the same scraper; its CPU is in
# neither. At the end it says how many scrapes succeeded, which is how many
# seconds B served /metrics. Both sides run with --collect none (the
# collectors' cost is bench/collect-overhead.sh's subject).
#
# Then bench/metricscost: the endpoint's whole work alone (one tick, the
# collectors' points and one scrape per second of run, for 1 and 5
# transaction types), its CPU from getrusage, which resolves far below the
# 1% a throughput pair can see on a shared machine.
#
#   bench/metrics-overhead.sh                (TX=50000 PAIRS=7 CLIENTS=8)
#   PAIRS=9 TX=100000 bench/metrics-overhead.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${PG:-postgres://postgres@127.0.0.1:5432}
SOCK=${SOCK:-/var/run/postgresql}
DB=${DB:-dbh_metrics_bench}
TX=${TX:-50000}
PAIRS=${PAIRS:-7}
CLIENTS=${CLIENTS:-8}
PORT=${PORT:-19465}
PROMPORT=${PROMPORT:-19466}
command -v prometheus >/dev/null || { echo "metrics-overhead.sh: prometheus is missing (apt-get install prometheus)" >&2; exit 1; }
TMP=$(mktemp -d)
PROM_PID=
cleanup() {
  [ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
go build -o "$TMP/dbharness" ./cmd/dbharness
go build -o "$TMP/pairs" ./bench/pairs
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
"$TMP/dbharness" init tpcb --db "$PG/$DB?sslmode=disable" --scale 10 >/dev/null 2>&1
URL="postgres://postgres@/$DB?host=$SOCK"

cat >"$TMP/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: dbharness
    static_configs:
      - targets: ['127.0.0.1:$PORT']
YML
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/data" \
  --web.listen-address="127.0.0.1:$PROMPORT" --enable-feature=native-histograms >"$TMP/prometheus.log" 2>&1 &
PROM_PID=$!
for _ in $(seq 1 60); do
  curl -fs "http://127.0.0.1:$PROMPORT/-/ready" >/dev/null 2>&1 && break
  sleep 1
done
curl -fs "http://127.0.0.1:$PROMPORT/-/ready" >/dev/null || { echo "metrics-overhead.sh: prometheus did not start:" >&2; cat "$TMP/prometheus.log" >&2; exit 1; }

run() { echo "$TMP/dbharness run tpcb --db '$URL' --mix select-only -c $CLIENTS -t $TX --no-save --no-doctor --progress 0 --collect none $*"; }
started=$(date +%s)
echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); dbharness $(git rev-parse --short HEAD 2>/dev/null || echo '?'); $(prometheus --version 2>&1 | head -1)"
"$TMP/pairs" -n "$PAIRS" -name-a off -name-b on \
  -title "== --metrics-addr off against on, scraped every second ($CLIENTS clients x $TX select-only, Unix socket)" \
  -a "$(run)" -b "$(run --metrics-addr "127.0.0.1:$PORT")"
echo "   load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
sleep 2
range=$(( $(date +%s) - started + 5 ))
scrapes=$(curl -fsG "http://127.0.0.1:$PROMPORT/api/v1/query" \
  --data-urlencode "query=sum_over_time(up{job=\"dbharness\"}[${range}s])" |
  python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
echo "   Prometheus scraped /metrics successfully $scrapes times (about one a second while B ran)"
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null
echo "== the endpoint's CPU alone (bench/metricscost: ticks, points and scrapes, no run)"
for ops in 1 5; do
  go run ./bench/metricscost -ops "$ops" -seconds "${COSTSECS:-300}"
done
