#!/usr/bin/env bash
# servercpu-overhead.sh: what --collect server-cpu costs. Alternating pairs
# of timed runs (select-only, $CLIENTS clients for $SECS s each, over the
# Unix socket, PostgreSQL on this host), --collect none against
# --collect server-cpu, read from each run's JSON:
#
#   - the throughput cost: tps with the profile over tps without it (perf
#     samples the server's processes at 199 Hz per busy CPU, and on the
#     server's host competes with it for the cores);
#   - perf record's own CPU (perf_cpu_s, from the OS, from before the
#     clients connect to the end of the run), per second of measured phase;
#   - the fixed cost per run: the extra wall time of the whole command
#     (perf's start before the clients connect, its end and perf script
#     after the run).
#
#   bench/servercpu-overhead.sh               (SECS=10 PAIRS=5 CLIENTS=8)
# Needs perf (Debian linux-perf) and root, like --collect server-cpu.
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${PG:-postgres://postgres@127.0.0.1:5432}
SOCK=${SOCK:-/var/run/postgresql}
DB=${DB:-dbh_cpu_bench}
SECS=${SECS:-10}
PAIRS=${PAIRS:-5}
CLIENTS=${CLIENTS:-8}
command -v perf >/dev/null || { echo "servercpu-overhead.sh: perf is missing (apt-get install -y linux-perf)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/dbharness" ./cmd/dbharness
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
"$TMP/dbharness" init tpcb --db "$PG/$DB?sslmode=disable" --scale 10 >/dev/null 2>&1
URL="postgres://postgres@/$DB?host=$SOCK"

echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores; dbharness $(git rev-parse --short HEAD 2>/dev/null || echo '?'); $(perf --version)"
echo "== --collect none against server-cpu ($CLIENTS clients, select-only, $SECS s each, Unix socket)"
for i in $(seq 1 "$PAIRS"); do
  for k in none server-cpu; do
    s=$(date +%s.%N)
    "$TMP/dbharness" run tpcb --db "$URL" --mix select-only -c "$CLIENTS" -T "$SECS" --no-save --no-doctor --progress 0 \
      --collect "$k" --json "$TMP/$i-$k.json" >/dev/null 2>&1
    echo "$(date +%s.%N) - $s" | bc > "$TMP/$i-$k.wall"
  done
done
python3 - "$TMP" "$PAIRS" <<'PY'
import json, statistics, sys
d, n = sys.argv[1], int(sys.argv[2])
tps, perf, fixed, read, server = [], [], [], [], []
for i in range(1, n + 1):
    a, b = (json.load(open(f"{d}/{i}-{k}.json")) for k in ("none", "server-cpu"))
    c = b["server_cpu"]
    if c.get("unavailable"):
        sys.exit("no profile: " + c["unavailable"])
    wa, wb = (float(open(f"{d}/{i}-{k}.wall").read()) for k in ("none", "server-cpu"))
    tps.append(b["summary"]["tps"] / a["summary"]["tps"])
    perf.append(c["perf_cpu_s"] / c["seconds"])
    fixed.append(wb - wa)
    read.append(c["read_s"])
    server.append(c["cpu_s"] / c["seconds"])
    print(f"  pair {i}: none {a['summary']['tps']:.0f} tps, server-cpu {b['summary']['tps']:.0f} tps ({tps[-1]:.3f});"
          f" perf {c['perf_cpu_s']:.2f} s CPU over a {c['seconds']:.1f} s measured phase; {c['samples']} samples ({c['cpu_s']:.1f} s server CPU);"
          f" perf script {c['read_s']:.2f} s; command {wb - wa:+.2f} s wall")
m = statistics.median
print(f"  median over {n} pairs: tps ratio {m(tps):.3f} (range {min(tps):.3f}-{max(tps):.3f});"
      f" perf record {100 * m(perf):.1f}% of a core beside {m(server):.2f} server CPUs;"
      f" fixed cost {m(fixed):.2f} s per run, of which perf script {m(read):.2f} s")
PY
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null
