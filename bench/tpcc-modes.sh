#!/usr/bin/env bash
# TPC-C in server mode (one call of a server-side routine per transaction,
# HammerDB's way) against client mode (each statement sent by the client),
# on the local PostgreSQL and MariaDB/MySQL: $PAIRS alternating pairs of
# runs of $DURATION seconds at $CLIENTS clients on $WAREHOUSES warehouses,
# each run a fresh process whose CPU (user + system, from the kernel via
# /usr/bin/time) is the harness's own. Per run it prints NOPM, TPM, tpmC,
# HammerDB's NOPM and TPM (counted as HammerDB counts them) and the client
# CPU per New-Order; then per engine the median and range of each, the
# server/client NOPM ratio of each pair, hammerdb_nopm/nopm, and NOPM
# against HammerDB v4.12's figures measured on the development machine
# (issue 19: 38,938 on PostgreSQL, 20,672 on MariaDB, 1 warehouse, 4 virtual
# users, 60 s).
#
#   ENGINES="postgres mysql" PAIRS=3 DURATION=60 CLIENTS=4 WAREHOUSES=1 bench/tpcc-modes.sh
#
# The database ($DB, default dbh_tpcc_modes) is loaded once per engine
# (RELOAD=0 reuses one already loaded) and grows with every run; the pairs alternate which mode goes first, so the
# growth weighs on both alike. Evidence collection is off (--collect none):
# the CPU is the driver's. The machine may be shared and noisy: read the
# spread before trusting a ratio.
set -euo pipefail
cd "$(dirname "$0")/.."

ENGINES=${ENGINES:-postgres mysql}
PAIRS=${PAIRS:-3}
D=${DURATION:-60}
C=${CLIENTS:-4}
W=${WAREHOUSES:-1}
DB=${DB:-dbh_tpcc_modes}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
MY=${MY:-mysql://root@127.0.0.1:3306}
RELOAD=${RELOAD:-1}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/dbharness" ./cmd/dbharness

recreate() {
	case $1 in
	postgres)
		PGOPTIONS="-c client_min_messages=warning" psql -q "$PG/postgres" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
		;;
	mysql)
		local hp=${MY#mysql://}
		local user=${hp%@*} host=${hp#*@}
		mysql -u"$user" -h"${host%:*}" -P"${host#*:}" -e "DROP DATABASE IF EXISTS $DB; CREATE DATABASE $DB"
		;;
	esac
}

results="$tmp/results.tsv"
: >"$results"
for engine in $ENGINES; do
	case $engine in
	postgres) url="$PG/$DB" ;;
	mysql) url="$MY/$DB" ;;
	*)
		echo "unknown engine $engine (postgres or mysql)" >&2
		exit 2
		;;
	esac
	if [ "$RELOAD" = 1 ]; then
		echo "== $engine: load $W warehouse(s) into $DB"
		recreate "$engine"
		"$tmp/dbharness" init tpcc --db "$url" --warehouses "$W" 2>/dev/null
	fi
	echo "== $engine: $PAIRS pairs, ${D}s each, $C clients, $W warehouse(s)"
	printf '%-8s %-4s %-6s %9s %9s %9s %13s %13s %10s %8s %12s\n' engine pair mode nopm tpm tpmc hammerdb_nopm hammerdb_tpm server_tpm cpu_s cpu_ms_per_no
	for pair in $(seq 1 "$PAIRS"); do
		order="server client"
		[ $((pair % 2)) = 0 ] && order="client server"
		for mode in $order; do
			js="$tmp/$engine-$pair-$mode.json"
			/usr/bin/time -f "%U %S" -o "$tmp/time" "$tmp/dbharness" run tpcc --db "$url" --mode "$mode" --clients "$C" \
				--duration "$D" --progress 0 --collect none --no-save --no-doctor --json "$js" >/dev/null 2>"$tmp/err" || {
				cat "$tmp/err" >&2
				exit 1
			}
			python3 - "$engine" "$pair" "$mode" "$js" "$tmp/time" "$D" <<'PY' | tee -a "$results"
import json, sys
engine, pair, mode, js, timef, dur = sys.argv[1:]
r = json.load(open(js))
s = r["summary"]
user, sys_ = map(float, open(timef).read().split()[-2:])
cpu = user + sys_
no = next(o["count"] for o in r["ops"] if o["name"] == "new_order")
g = lambda k: s.get(k, float("nan"))
print(f"{engine:<8} {pair:<4} {mode:<6} {g('nopm'):9.0f} {g('tpm'):9.0f} {g('tpmc'):9.0f} {g('hammerdb_nopm'):13.0f} "
      f"{g('hammerdb_tpm'):13.0f} {g('server_tpm'):10.0f} {cpu:8.2f} {1000 * cpu / no:12.3f}")
PY
		done
	done
done

echo "== summary: median [min, max] over the runs of each engine and mode"
python3 - "$results" <<'PY'
import statistics, sys
from collections import defaultdict
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
cols = ["nopm", "tpm", "tpmc", "hammerdb_nopm", "hammerdb_tpm", "server_tpm", "cpu_s", "cpu_ms_per_no"]
by = defaultdict(list)
for r in rows:
    by[(r[0], r[2])].append(dict(zip(cols, map(float, r[3:]))))
hammerdb = {"postgres": 38938, "mysql": 20672}
def fmt(v):
    return f"{statistics.median(v):.0f} [{min(v):.0f}, {max(v):.0f}]" if v[0] >= 100 else f"{statistics.median(v):.3f} [{min(v):.3f}, {max(v):.3f}]"
for (engine, mode), runs in sorted(by.items()):
    print(f"{engine} {mode}:")
    for c in cols:
        v = [x[c] for x in runs if x[c] == x[c]]
        if v:
            print(f"  {c:<14} {fmt(v)}")
    v = [x["hammerdb_nopm"] / x["nopm"] for x in runs if x["nopm"] > 0 and x["hammerdb_nopm"] == x["hammerdb_nopm"]]
    if v:
        print(f"  hammerdb_nopm/nopm {statistics.median(v):.4f} [{min(v):.4f}, {max(v):.4f}]")
    if mode == "server":
        v = [x["nopm"] / hammerdb[engine] for x in runs]
        print(f"  nopm / HammerDB v4.12's {hammerdb[engine]} (issue 19): {statistics.median(v):.2f} [{min(v):.2f}, {max(v):.2f}]")
for engine in sorted({e for e, _ in by}):
    pairs = defaultdict(dict)
    for r in rows:
        if r[0] == engine:
            pairs[r[1]][r[2]] = float(r[3])
    ratios = [p["server"] / p["client"] for p in pairs.values() if "server" in p and p.get("client", 0) > 0]
    if ratios:
        print(f"{engine}: server/client NOPM per pair: median {statistics.median(ratios):.2f} [{min(ratios):.2f}, {max(ratios):.2f}] "
              f"({' '.join(f'{x:.2f}' for x in ratios)})")
    cpu = defaultdict(list)
    for r in rows:
        if r[0] == engine:
            cpu[r[2]].append(float(r[10]))
    if cpu.get("server") and cpu.get("client"):
        print(f"{engine}: client CPU per New-Order, client/server: {statistics.median(cpu['client']) / statistics.median(cpu['server']):.2f}")
PY
