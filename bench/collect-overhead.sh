#!/usr/bin/env bash
# collect-overhead.sh: what the evidence collectors cost, measured as
# bench/vs-pgbench.sh measures dbharness against pgbench: fixed work
# (select-only, $CLIENTS clients x $TX transactions each, over the Unix
# socket), alternating pairs (bench/pairs), wall and CPU time from the OS.
#
#   1. steady state: --collect none against --collect os,server,waits (OS
#      and server counters every interval, pg_stat_activity every 100 ms);
#      the wall ratio is the throughput cost, the CPU ratio the client's;
#   2. the plan checks' fixed cost: --collect none against --collect plans
#      (every statement explained before the run and after it), printed
#      as seconds per run, since it does not grow with the run's length;
#   3. the collectors' CPU alone (bench/collectcost: client CPU from
#      getrusage, the CPU of their server backends from /proc), which
#      resolves far below 1%.
#
#   bench/collect-overhead.sh                 (TX=50000 PAIRS=7 CLIENTS=8)
#   KINDS="os,server waits" STEADY_ONLY=1 bench/collect-overhead.sh
#       step 1 for each set of collectors in KINDS apart (default
#       os,server,waits), and nothing else
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${PG:-postgres://postgres@127.0.0.1:5432}
SOCK=${SOCK:-/var/run/postgresql}
DB=${DB:-dbh_ev_bench}
TX=${TX:-50000}
PAIRS=${PAIRS:-7}
CLIENTS=${CLIENTS:-8}
KINDS=${KINDS:-os,server,waits}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/dbharness" ./cmd/dbharness
go build -o "$TMP/pairs" ./bench/pairs
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
"$TMP/dbharness" init tpcb --db "$PG/$DB?sslmode=disable" --scale 10 >/dev/null 2>&1
URL="postgres://postgres@/$DB?host=$SOCK"
run() { echo "$TMP/dbharness run tpcb --db '$URL' --mix select-only -c $CLIENTS -t $TX --no-save --no-doctor --progress 0 --collect $1"; }

echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores; dbharness $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
for k in $KINDS; do
  "$TMP/pairs" -n "$PAIRS" -name-a none -name-b "$k" \
    -title "== steady state: --collect none against $k ($CLIENTS clients x $TX select-only, Unix socket)" \
    -a "$(run none)" -b "$(run "$k")"
done
if [ -n "${STEADY_ONLY:-}" ]; then
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null
  exit 0
fi
"$TMP/pairs" -n "$PAIRS" -name-a none -name-b plans \
  -title "== the plan checks: --collect none against plans" \
  -a "$(run none)" -b "$(run plans)" | tee "$TMP/plans"
python3 - "$TMP/plans" <<'PY'
import re, statistics, sys
pairs = [tuple(map(float, m)) for m in re.findall(r"none\s+([\d.]+)s wall .*\| plans\s+([\d.]+)s wall", open(sys.argv[1]).read())]
d = [b - a for a, b in pairs]
print(f"  plan checks' fixed cost: median {statistics.median(d):.2f} s per run (range {min(d):.2f} to {max(d):.2f})")
PY
echo "== the collectors' CPU alone (bench/collectcost, ${COSTSECS:-30} s beside $CLIENTS idle sessions)"
go run ./bench/collectcost -db "$PG/$DB" -seconds "${COSTSECS:-30}" -sessions "$CLIENTS"
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null
