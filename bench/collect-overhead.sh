#!/usr/bin/env bash
# collect-overhead.sh: what the evidence collectors cost. Runs tpcb
# select-only on the local PostgreSQL with --collect none and with
# --collect all (OS and server counters every interval, pg_stat_activity
# every 100 ms, plans before and after), alternating so that drift and
# noise hit both sides alike, and prints the throughput ratio. On a shared,
# busy machine the ratio of two runs varies by tens of percent, so the script
# first measures the collectors' CPU directly (bench/collectcost: the
# collectors alone, client CPU from getrusage, server CPU of their backends
# from /proc), which resolves far below 1%.
#
#   bench/collect-overhead.sh            # 5 pairs of 10 s runs, 4 clients
#   PAIRS=3 SECS=20 CLIENTS=8 bench/collect-overhead.sh
#
# Environment: PG (server URL without database, default
# postgres://postgres@127.0.0.1:5432), DB (database, default dbh_ev_bench),
# SCALE (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${PG:-postgres://postgres@127.0.0.1:5432}
DB=${DB:-dbh_ev_bench}
SCALE=${SCALE:-1}
PAIRS=${PAIRS:-5}
SECS=${SECS:-10}
CLIENTS=${CLIENTS:-4}
BIN=$(mktemp -d)/dbharness
go build -o "$BIN" ./cmd/dbharness
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
"$BIN" init tpcb --db "$PG/$DB" --scale "$SCALE" >/dev/null 2>&1
echo "== collectors' CPU (bench/collectcost, ${COSTSECS:-30}s)"
go run ./bench/collectcost -db "$PG/$DB" -seconds "${COSTSECS:-30}" -sessions "$CLIENTS"
echo
echo "== throughput side by side"
tps() { python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["tps"])'; }
run() {
	"$BIN" run tpcb --mix select-only --db "$PG/$DB" -c "$CLIENTS" -T "$SECS" -P 0 --no-save --collect "$1" --json - 2>/dev/null | tps
}
echo "tpcb select-only, $CLIENTS clients, ${SECS}s per run, $PAIRS pairs, on $(nproc) cores (others may be busy: noisy)"
printf "%-5s %12s %12s %8s\n" pair none_tps all_tps ratio
none=() all=()
for i in $(seq 1 "$PAIRS"); do
	# Alternate which side goes first.
	if (( i % 2 )); then a=$(run none); b=$(run all); else b=$(run all); a=$(run none); fi
	none+=("$a"); all+=("$b")
	printf "%-5s %12.1f %12.1f %8.4f\n" "$i" "$a" "$b" "$(python3 -c "print($b/$a)")"
done
python3 - "${none[*]}" "${all[*]}" <<'PY'
import statistics, sys
none = [float(x) for x in sys.argv[1].split()]
all_ = [float(x) for x in sys.argv[2].split()]
ratios = [b / a for a, b in zip(none, all_)]
m_none, m_all = statistics.median(none), statistics.median(all_)
print(f"median tps: none {m_none:.1f}, all {m_all:.1f}; ratio of medians {m_all/m_none:.4f}")
print(f"median of pair ratios {statistics.median(ratios):.4f} (min {min(ratios):.4f}, max {max(ratios):.4f})")
print(f"throughput difference (median of pair ratios): {100*(1-statistics.median(ratios)):.2f}%; compare with the spread of the ratios before reading it")
PY
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null
