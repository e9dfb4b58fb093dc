#!/usr/bin/env bash
# HammerDB's TPROC-C (timed driver) against dbharness's tpcc in server and
# client mode, in the same session, alternating, each tool on the schema it
# built: NOPM, TPM and the client's CPU (user + system, /usr/bin/time) per
# New-Order. HammerDB is not shipped: point $HAMMERDB at a HammerDB v4.12
# source tree (its hammerdbcli script); it runs on Debian's tclsh8.6 with
# the packages tcl-thread, libsqlite3-tcl, libpgtcl (PostgreSQL) and
# mysqltcl (MariaDB/MySQL, through HammerDB's MySQL module).
#
#   HAMMERDB=/path/to/HammerDB-4.12 ENGINE=postgres VU=1 PAIRS=2 bench/vs-hammerdb.sh
#   HAMMERDB=/path/to/HammerDB-4.12 ENGINE=mysql VU=4 PAIRS=2 bench/vs-hammerdb.sh
#
# Two stand-ins make HammerDB v4.12 start with Debian's packages, installed
# by this script into a private directory on TCLLIBPATH: a "ticklecharts"
# module (HammerDB's charts, unused by the timed driver) and, for
# PostgreSQL, "pgtclshim", which loads Debian's Pgtcl 2.7 and adds what
# HammerDB expects of Pgtcl 3 (pg_notice_handler; pg_exec_prepared with
# format lists). Debian's Pgtcl 2.7 garbles prepared calls when several
# virtual users share the process: on PostgreSQL use VU=1.
#
# HammerDB's MySQL module needs a user with a password: MY_USER/MY_PASS
# (created if missing, with all privileges). The databases are $DB_HDB
# (HammerDB's) and $DB (dbharness's), both rebuilt.
set -euo pipefail
cd "$(dirname "$0")/.."

: "${HAMMERDB:?set HAMMERDB to a HammerDB v4.12 source tree}"
ENGINE=${ENGINE:-postgres}
VU=${VU:-1}
PAIRS=${PAIRS:-2}
W=${WAREHOUSES:-1}
DB=${DB:-dbh_tpcc_vs_hdb}
DB_HDB=${DB_HDB:-dbh_tpcc_hdb}
MY_USER=${MY_USER:-dbh_hdb}
MY_PASS=${MY_PASS:-dbh_hdb}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/dbharness" ./cmd/dbharness

. bench/hammerdb-env.sh

case $ENGINE in
postgres)
	PG=${PG:-postgres://postgres@127.0.0.1:5432}
	url="$PG/$DB"
	PGOPTIONS="-c client_min_messages=warning" psql -q "$PG/postgres" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" \
		-c "DROP DATABASE IF EXISTS $DB_HDB WITH (FORCE)" -c "DROP ROLE IF EXISTS $DB_HDB" -c "CREATE DATABASE $DB" >/dev/null
	common="dbset db pg
dbset bm TPC-C
diset connection pg_host 127.0.0.1
diset connection pg_port 5432
diset tpcc pg_superuser postgres
diset tpcc pg_user $DB_HDB
diset tpcc pg_pass $DB_HDB
diset tpcc pg_dbase $DB_HDB"
	build="$common
diset tpcc pg_count_ware $W
diset tpcc pg_num_vu 1
buildschema"
	run="$common
diset tpcc pg_driver timed
diset tpcc pg_rampup 0
diset tpcc pg_duration 1
loadscript
vuset vu $VU
vucreate
vurun
vudestroy"
	;;
mysql)
	MY=${MY:-mysql://root@127.0.0.1:3306}
	url="$MY/$DB"
	hp=${MY#mysql://}
	myc() { mysql -u"${hp%@*}" -h127.0.0.1 -P"${hp##*:}" "$@"; }
	myc -e "DROP DATABASE IF EXISTS $DB; DROP DATABASE IF EXISTS $DB_HDB; CREATE DATABASE $DB;
		CREATE USER IF NOT EXISTS '$MY_USER'@'%' IDENTIFIED BY '$MY_PASS'; GRANT ALL ON *.* TO '$MY_USER'@'%';"
	common="dbset db mysql
dbset bm TPC-C
diset connection mysql_host 127.0.0.1
diset connection mysql_port ${hp##*:}
diset connection mysql_socket null
diset tpcc mysql_user $MY_USER
diset tpcc mysql_pass $MY_PASS
diset tpcc mysql_dbase $DB_HDB"
	build="$common
diset tpcc mysql_count_ware $W
diset tpcc mysql_num_vu 1
buildschema"
	run="$common
diset tpcc mysql_driver timed
diset tpcc mysql_rampup 0
diset tpcc mysql_duration 1
loadscript
vuset vu $VU
vucreate
vurun
vudestroy"
	;;
*)
	echo "ENGINE is postgres or mysql" >&2
	exit 2
	;;
esac
echo "$build" >"$tmp/build.tcl"
echo "$run" >"$tmp/run.tcl"

echo "== build: HammerDB's schema ($DB_HDB) and dbharness's ($DB), $W warehouse(s)"
hdb "$tmp/build.tcl" >"$tmp/build.log" 2>&1 || true
grep -q "SCHEMA COMPLETE" "$tmp/build.log" || {
	tail -20 "$tmp/build.log" >&2
	exit 1
}
"$tmp/dbharness" init tpcc --db "$url" --warehouses "$W" 2>/dev/null

echo "== $PAIRS pairs, 60 s each, $VU virtual users / clients"
for pair in $(seq 1 "$PAIRS"); do
	/usr/bin/time -f "%U %S" -o "$tmp/time" bash -c "cd '$tmp/hdb' && rm -f '$tmp'/*.db '$tmp'/*.DB && ./hammerdbcli auto '$tmp/run.tcl'" >"$tmp/run.log" 2>&1 || true
	res=$(grep 'TEST RESULT' "$tmp/run.log" | sed 's/.*achieved //')
	errs=$(grep -c 'Procedure Error' "$tmp/run.log" || true)
	python3 - "$pair" "$res" "$errs" "$tmp/time" <<'PY'
import re, sys
pair, res, errs, timef = sys.argv[1:]
cpu = sum(map(float, open(timef).read().split()[-2:]))
m = re.match(r"(\d+) NOPM from (\d+)", res)
nopm, tpm = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
per = f"{1000 * cpu / nopm:.3f}" if nopm else "-"
print(f"pair {pair} hammerdb         NOPM {nopm:7d}  TPM {tpm:7d}  CPU {cpu:6.2f} s  {per} ms/New-Order  ({errs} procedure errors)")
PY
	for mode in server client; do
		/usr/bin/time -f "%U %S" -o "$tmp/time" "$tmp/dbharness" run tpcc --db "$url" --mode "$mode" --clients "$VU" \
			--duration 60 --progress 0 --collect none --no-save --no-doctor --json "$tmp/run.json" >/dev/null 2>&1
		python3 - "$pair" "$mode" "$tmp/run.json" "$tmp/time" <<'PY'
import json, sys
pair, mode, js, timef = sys.argv[1:]
s = json.load(open(js))["summary"]
cpu = sum(map(float, open(timef).read().split()[-2:]))
print(f"pair {pair} dbharness {mode:6s} NOPM {s['nopm']:7.0f}  TPM {s['tpm']:7.0f}  CPU {cpu:6.2f} s  "
      f"{1000 * cpu / s['nopm']:.3f} ms/New-Order  (hammerdb_nopm {s['hammerdb_nopm']:.0f}, hammerdb_tpm {s.get('hammerdb_tpm', 0):.0f})")
PY
	done
done
