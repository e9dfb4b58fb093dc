#!/usr/bin/env bash
# TPC-C side by side with go-tpc on the local PostgreSQL: load time of
# $WAREHOUSES warehouses (dbharness init tpcc vs go-tpc tpcc prepare) and
# NOPM/tpmC at the same warehouses and clients (dbharness run tpcc vs go-tpc
# tpcc run), each tool on a database it loaded itself. Prints the ratios.
# go-tpc is fetched through the Go module proxy with `go run`; it is not
# vendored. If it cannot be fetched, dbharness's figures are printed alone.
#
#   WAREHOUSES=10 CLIENTS=8 DURATION=30 bench/vs-gotpc.sh
#
# The machine may be shared and noisy: repeat before trusting a ratio.
set -euo pipefail
cd "$(dirname "$0")/.."

W=${WAREHOUSES:-10}
C=${CLIENTS:-8}
D=${DURATION:-30}
PGHOST=${PGHOST:-127.0.0.1}
PGPORT=${PGPORT:-5432}
PGUSER=${PGUSER:-postgres}
GOTPC=${GOTPC:-github.com/pingcap/go-tpc/cmd/go-tpc@latest}
DB_DBH=dbh_tpcc_bench_dbh
DB_GOTPC=dbh_tpcc_bench_gotpc
BASE="postgres://$PGUSER@$PGHOST:$PGPORT"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/dbharness" ./cmd/dbharness

recreate() {
	PGOPTIONS="-c client_min_messages=warning" psql -q -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -d postgres -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1" >/dev/null
}
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.1f}')"; }

echo "== go-tpc: fetching $GOTPC through the Go module proxy"
have_gotpc=0
if (cd "$tmp" && go run "$GOTPC" version) >"$tmp/gotpc-fetch.log" 2>&1; then
	have_gotpc=1
	gotpc() { (cd "$tmp" && go run "$GOTPC" "$@"); }
else
	echo "go-tpc could not be fetched: $(head -c 300 "$tmp/gotpc-fetch.log" | tr '\n' ' ')"
	echo "(only dbharness's figures follow; no ratios)"
fi

echo "== load $W warehouses"
recreate $DB_DBH
t0=$(now)
"$tmp/dbharness" init tpcc --db "$BASE/$DB_DBH" --warehouses "$W" 2>/dev/null
t1=$(now)
load_dbh=$(secs "$t0" "$t1")
echo "dbharness init tpcc: ${load_dbh}s"
if [ $have_gotpc = 1 ]; then
	recreate $DB_GOTPC
	t0=$(now)
	gotpc tpcc prepare -d postgres -H "$PGHOST" -P "$PGPORT" -U "$PGUSER" -D $DB_GOTPC --conn-params sslmode=disable \
		--warehouses "$W" -T "$(nproc)" >"$tmp/gotpc-prepare.log" 2>&1
	t1=$(now)
	load_gotpc=$(secs "$t0" "$t1")
	echo "go-tpc tpcc prepare: ${load_gotpc}s"
fi

echo "== run: $W warehouses, $C clients, ${D}s"
"$tmp/dbharness" run tpcc --db "$BASE/$DB_DBH" --clients "$C" --duration "$D" --max-tries 10 --progress 0 \
	--no-save --no-doctor --json "$tmp/dbh.json" >/dev/null
read -r nopm tpmc tpm <<<"$(python3 -c "import json; s=json.load(open('$tmp/dbh.json'))['summary']; print(s['nopm'], s['tpmc'], s['tpm'])")"
echo "dbharness: NOPM $nopm  tpmC $tpmc  TPM $tpm"
if [ $have_gotpc = 1 ]; then
	gotpc tpcc run -d postgres -H "$PGHOST" -P "$PGPORT" -U "$PGUSER" -D $DB_GOTPC --conn-params sslmode=disable \
		--warehouses "$W" -T "$C" --time "${D}s" >"$tmp/gotpc-run.log" 2>&1 || true
	g_tpmc=$(grep -o 'tpmC: [0-9.]*' "$tmp/gotpc-run.log" | tail -1 | awk '{print $2}')
	echo "go-tpc:    tpmC ${g_tpmc:-?}"
	echo "== ratios (dbharness / go-tpc; above 1 means dbharness is ahead)"
	python3 - "$load_dbh" "$load_gotpc" "$tpmc" "${g_tpmc:-0}" <<'PY'
import sys
ld, lg, t, g = map(float, sys.argv[1:])
print(f"load speed (go-tpc time / dbharness time): {lg / ld:.2f}")
print(f"tpmC (dbharness / go-tpc):                 {t / g:.2f}" if g > 0 else "tpmC: go-tpc printed none")
PY
fi
