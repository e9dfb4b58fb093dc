#!/usr/bin/env bash
# TPC-H load time at scale factor $SF: dbharness `init tpch --scale SF`
# against go-tpc's `tpch prepare --sf SF` (MariaDB/MySQL only: go-tpc's
# tpch has no PostgreSQL driver) in alternating pairs through bench/pairs
# (wall and CPU of each side from the OS), and against the server's own
# ceiling: the same rows (dbharness's generator writes them to files, not
# timed) loaded by the server from files, one table after another, with
# PostgreSQL's COPY ... FROM and MariaDB's LOAD DATA INFILE, into the same
# tables (keys added after the load on PostgreSQL, as init does).
#
# go-tpc is fetched through the Go module proxy with `go run` (as
# bench/vs-gotpc.sh does); it is not vendored.
#
#   SF=1 PAIRS=5 ENGINES="postgres mysql" bench/tpch-load.sh
#   SF=1 PAIRS=2 ENGINES=mysql CEILING=0 bench/tpch-load.sh   # go-tpc only
#
# Every side drops and recreates its own database first (inside the timed
# command: a few milliseconds). Both load with $LOADERS connections
# (go-tpc -T, dbharness --loaders); go-tpc's output is kept in
# $DATA/go-tpc-prepare.log. The machine may be shared: the load
# average is printed before each engine.
set -euo pipefail
cd "$(dirname "$0")/.."
SF=${SF:-1}
PAIRS=${PAIRS:-5}
ENGINES=${ENGINES:-postgres mysql}
LOADERS=${LOADERS:-$(nproc)}
PGHOST=${PGHOST:-127.0.0.1}
PGPORT=${PGPORT:-5432}
PGUSER=${PGUSER:-postgres}
MYUSER=${MYUSER:-root}
GOTPC=${GOTPC:-github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7}
DATA=${DATA:-/tmp/dbh-tpch-tbl-$SF}
# CEILING=0 leaves out MariaDB's LOAD DATA pairs (go-tpc's alone);
# CEILING=only runs them without go-tpc's.
CEILING=${CEILING:-1}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/dbharness" ./cmd/dbharness
go build -o "$tmp/pairs" ./bench/pairs

echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), SF $SF, $PAIRS pairs, $LOADERS loaders"

if [ ! -s "$DATA/lineitem.tbl" ]; then
	echo "== writing the rows to $DATA (not timed)"
	mkdir -p "$DATA"
	go run ./bench/tpchtbl -sf "$SF" -dir "$DATA"
fi
chmod -R a+rX "$DATA"

gotpc_bin=""
echo "== go-tpc: building $GOTPC through the Go module proxy"
if (cd "$tmp" && GOBIN="$tmp" go install "$GOTPC") >"$tmp/gotpc-fetch.log" 2>&1; then
	gotpc_bin="$tmp/go-tpc"
else
	echo "go-tpc could not be built: $(head -c 300 "$tmp/gotpc-fetch.log" | tr '\n' ' ')"
fi

# HammerDB's TPROC-H build (buildschema) as a third side where $HAMMERDB
# points at a HammerDB v4.12 source tree (bench/hammerdb-env.sh says what it
# needs): on PostgreSQL with $HDB_THREADS threads (1 by default: Debian's
# Pgtcl 2.7 crashes HammerDB's build with 2). Its scale factors start at 1.
# It generates its rows in Tcl: at SF 1 one build takes tens of minutes, so
# $HDB_PAIRS (1 by default) pairs are run.
HDB_THREADS=${HDB_THREADS:-1}
HDB_PAIRS=${HDB_PAIRS:-1}
if [ -n "${HAMMERDB:-}" ]; then
	. bench/hammerdb-env.sh
fi

my() { mysql -h 127.0.0.1 -u "$MYUSER" "$@"; }
tables="region nation supplier customer part partsupp orders lineitem"

for engine in $ENGINES; do
	echo
	echo "== $engine, load $(cut -d' ' -f1-3 /proc/loadavg)"
	case $engine in
	postgres)
		url="postgres://$PGUSER@$PGHOST:$PGPORT/dbh_tpch_load"
		recreate="psql -q -h $PGHOST -p $PGPORT -U $PGUSER -d postgres -c 'DROP DATABASE IF EXISTS dbh_tpch_load WITH (FORCE)' -c 'CREATE DATABASE dbh_tpch_load' >/dev/null"
		# The ceiling's tables are init's (made once by an init at the
		# smallest scale, dumped without keys); it loads each file with
		# one COPY, then adds the keys and runs VACUUM ANALYZE as init does.
		bash -c "$recreate"
		"$tmp/dbharness" init tpch --scale 0.01 --db "$url" >/dev/null 2>&1
		pg_dump -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" --schema-only --section=pre-data dbh_tpch_load >"$tmp/pg-schema.sql"
		{
			echo "set -e; $recreate"
			echo "psql -q -h $PGHOST -p $PGPORT -U $PGUSER -d dbh_tpch_load -f $tmp/pg-schema.sql >/dev/null"
			echo "psql -q -h $PGHOST -p $PGPORT -U $PGUSER -d dbh_tpch_load <<'SQL'"
			for t in $tables; do echo "\\copy $t FROM '$DATA/$t.tbl' WITH (DELIMITER '|')"; done
			echo "ALTER TABLE region ADD PRIMARY KEY (r_regionkey); ALTER TABLE nation ADD PRIMARY KEY (n_nationkey);"
			echo "ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey); ALTER TABLE customer ADD PRIMARY KEY (c_custkey);"
			echo "ALTER TABLE part ADD PRIMARY KEY (p_partkey); ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey);"
			echo "ALTER TABLE orders ADD PRIMARY KEY (o_orderkey); ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber);"
			echo "VACUUM ANALYZE;"
			echo "SQL"
		} >"$tmp/pg-ceiling.sh"
		echo "-- go-tpc's tpch has no PostgreSQL driver: the ceiling (A) against dbharness (B)"
		"$tmp/pairs" -n "$PAIRS" -title "postgres SF $SF: one COPY per table from files + keys + VACUUM ANALYZE (A) vs dbharness init tpch (B)" \
			-name-a "ceiling" -a "bash $tmp/pg-ceiling.sh" \
			-name-b "dbharness" -b "$recreate && $tmp/dbharness init tpch --scale $SF --loaders $LOADERS --db $url >/dev/null 2>&1"
		if [ -n "${HAMMERDB:-}" ]; then
			# HammerDB builds its own database and user (dropped first, inside
			# the timing: milliseconds), with its keys, indexes and ANALYZE.
			cat >"$tmp/hdb-tpch.tcl" <<TCL
dbset db pg
dbset bm TPC-H
diset connection pg_host $PGHOST
diset connection pg_port $PGPORT
diset tpch pg_tpch_superuser $PGUSER
diset tpch pg_tpch_user dbh_tpch_hdb
diset tpch pg_tpch_pass dbh_tpch_hdb
diset tpch pg_tpch_dbase dbh_tpch_hdb
diset tpch pg_scale_fact $SF
diset tpch pg_num_tpch_threads $HDB_THREADS
buildschema
TCL
			hdbdrop="psql -q -h $PGHOST -p $PGPORT -U $PGUSER -d postgres -c 'DROP DATABASE IF EXISTS dbh_tpch_hdb WITH (FORCE)' -c 'DROP ROLE IF EXISTS dbh_tpch_hdb' >/dev/null"
			echo "$hdbdrop && cd $tmp/hdb && rm -f $tmp/*.db $tmp/*.DB && ./hammerdbcli auto $tmp/hdb-tpch.tcl >$DATA/hammerdb-build.log 2>&1; grep -q 'SCHEMA COMPLETE' $DATA/hammerdb-build.log" >"$tmp/hdb-side.sh"
			"$tmp/pairs" -n "$HDB_PAIRS" -title "postgres SF $SF: HammerDB TPROC-H buildschema, $HDB_THREADS thread(s) (A) vs dbharness init tpch (B)" \
				-name-a "hammerdb" -a "bash $tmp/hdb-side.sh" \
				-name-b "dbharness" -b "$recreate && $tmp/dbharness init tpch --scale $SF --loaders $LOADERS --db $url >/dev/null 2>&1"
		fi
		;;
	mysql)
		my -e "SET GLOBAL local_infile = 1" 2>/dev/null || true
		url="mysql://$MYUSER@127.0.0.1:3306/dbh_tpch_load"
		recreate="mysql -h 127.0.0.1 -u $MYUSER -e 'DROP DATABASE IF EXISTS dbh_tpch_load; CREATE DATABASE dbh_tpch_load'"
		bash -c "$recreate"
		"$tmp/dbharness" init tpch --scale 0.01 --db "$url" >/dev/null 2>&1
		mysqldump -h 127.0.0.1 -u "$MYUSER" --no-data dbh_tpch_load >"$tmp/my-schema.sql"
		{
			echo "set -e; $recreate"
			echo "mysql -h 127.0.0.1 -u $MYUSER dbh_tpch_load <$tmp/my-schema.sql"
			# Two sessions, as the loaders: LINEITEM in one, the other seven
			# tables in the other.
			ld() { for t in "$@"; do printf "LOAD DATA LOCAL INFILE '%s' INTO TABLE %s FIELDS TERMINATED BY '|'; " "$DATA/$t.tbl" "$t"; done; }
			sess="mysql --local-infile=1 -h 127.0.0.1 -u $MYUSER dbh_tpch_load -e \"SET unique_checks = 0; SET foreign_key_checks = 0; "
			echo "$sess $(ld lineitem)\" & p=\$!; $sess $(ld ${tables% lineitem})\"; wait \$p"
			echo "mysql -h 127.0.0.1 -u $MYUSER dbh_tpch_load -e 'ANALYZE TABLE ${tables// /, }' >/dev/null"
		} >"$tmp/my-ceiling.sh"
		if [ "$CEILING" != 0 ]; then
			"$tmp/pairs" -n "$PAIRS" -title "mysql SF $SF: one LOAD DATA per table from files + ANALYZE (A) vs dbharness init tpch (B)" \
				-name-a "ceiling" -a "bash $tmp/my-ceiling.sh" \
				-name-b "dbharness" -b "$recreate && $tmp/dbharness init tpch --scale $SF --loaders $LOADERS --db $url >/dev/null 2>&1"
		fi
		if [ -n "$gotpc_bin" ] && [ "$CEILING" != only ]; then
			# go-tpc's --analyze sets a TiDB variable (tidb_build_stats_concurrency)
			# that MariaDB does not have, and panics: the statistics that init
			# makes are made here with the same ANALYZE TABLE, inside the timing.
			# ... and a load that wrote no rows (go-tpc takes whole scale
			# factors: --sf 0.01 loads nothing) fails the pair.
			analyze="mysql -h 127.0.0.1 -u $MYUSER dbh_tpch_load -e 'ANALYZE TABLE ${tables// /, }' >/dev/null &&
				test \$(mysql -N -h 127.0.0.1 -u $MYUSER dbh_tpch_load -e 'SELECT COUNT(*) FROM lineitem') -gt 0"
			"$tmp/pairs" -n "$PAIRS" -title "mysql SF $SF: go-tpc tpch prepare, then ANALYZE TABLE (A) vs dbharness init tpch (B)" \
				-name-a "go-tpc" -a "$recreate && $gotpc_bin tpch prepare -d mysql -H 127.0.0.1 -P 3306 -U $MYUSER -D dbh_tpch_load --sf $SF -T $LOADERS >$DATA/go-tpc-prepare.log 2>&1 && $analyze" \
				-name-b "dbharness" -b "$recreate && $tmp/dbharness init tpch --scale $SF --loaders $LOADERS --db $url >/dev/null 2>&1"
		fi
		;;
	esac
done
