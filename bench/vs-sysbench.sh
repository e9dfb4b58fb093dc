#!/usr/bin/env bash
# dbharness vs sysbench on the local MariaDB/MySQL: select-only, fixed work.
#
#   dbharness run tpcb --mix select-only --clients 8 --transactions 10000
#   sysbench oltp_point_select --threads=8 --events=80000 --time=0 --skip-trx=on
#
# in alternating pairs (the order flips every pair), over TCP to 127.0.0.1
# and over the Unix socket, TLS off on both sides. For every run the CPU
# (user + sys) and wall time come from the OS (the child's rusage, through
# /usr/bin/time). Prints each pair, then per transport the median wall
# ratio, the median CPU ratio (dbharness / sysbench) and their spread
# (min-max over the pairs).
#
# What is compared: both run on one database, each on its own table of
# 100,000 rows, keys drawn uniformly (sysbench's default --rand-type is
# "special", a skew; pgbench and dbharness draw uniformly):
#   dbharness: SELECT abalance FROM pgbench_accounts WHERE aid = ?   (tpcb --scale 1)
#   sysbench:  SELECT c FROM sbtest1 WHERE id=?                      (--table-size=100000)
# Both prepare the statement on the server once per connection and run it
# with COM_STMT_EXECUTE (binary protocol): sysbench's --db-ps-mode=auto and
# dbharness's prepared statements. SAME_TABLE=1 runs sysbench with a script
# of the same statement on pgbench_accounts instead of oltp_point_select,
# so that both read the same rows.
#
# Usage: bench/vs-sysbench.sh            (env: PAIRS=5 CLIENTS=8 TX=10000
#        TRANSPORTS="tcp socket" DB=dbh_vs_sysbench SOCK=/run/mysqld/mysqld.sock
#        MYSQL_USER=root BIN=./dbharness SAME_TABLE=0 LOOPS=; NOBUILD=1 runs BIN as it is;
#        LOOPS=N gives dbharness N event loops instead of its default)
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-5}
LOOPS=${LOOPS:-}
CLIENTS=${CLIENTS:-8}
TX=${TX:-10000}
TRANSPORTS=${TRANSPORTS:-tcp socket}
DB=${DB:-dbh_vs_sysbench}
SOCK=${SOCK:-/run/mysqld/mysqld.sock}
MYSQL_USER=${MYSQL_USER:-root}
BIN=${BIN:-./dbharness}
SAME_TABLE=${SAME_TABLE:-0}
ROWS=100000
EVENTS=$((CLIENTS * TX))

for tool in sysbench mysql /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "vs-sysbench: $tool is missing (apt-get install -y sysbench mariadb-client time)" >&2; exit 1; }
done
[ "${NOBUILD:-0}" = 1 ] || go build -o "$BIN" ./cmd/dbharness

my() { mysql -u "$MYSQL_USER" -h 127.0.0.1 "$@"; }
my -e "CREATE DATABASE IF NOT EXISTS $DB"
have_ssl=$(my -N -e "SELECT @@have_ssl")
echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(my -N -e 'SELECT VERSION()'), $(sysbench --version)"
echo "== server have_ssl=$have_ssl; TLS off on both sides: sysbench --mysql-ssl=off, dbharness tls=false"

echo "== loading: dbharness init tpcb --scale 1, sysbench prepare --table-size=$ROWS"
"$BIN" init tpcb --db "mysql://$MYSQL_USER@127.0.0.1:3306/$DB" --scale 1 >/dev/null 2>&1
SB_COMMON=(--db-driver=mysql --mysql-user="$MYSQL_USER" --mysql-db="$DB" --mysql-ssl=off --db-ps-mode=auto)
SB_OLTP=(--tables=1 --table-size=$ROWS --rand-type=uniform)
sysbench oltp_point_select "${SB_COMMON[@]}" "${SB_OLTP[@]}" --mysql-host=127.0.0.1 cleanup >/dev/null 2>&1 || true
sysbench oltp_point_select "${SB_COMMON[@]}" "${SB_OLTP[@]}" --mysql-host=127.0.0.1 prepare >/dev/null

SB_SCRIPT=oltp_point_select
SB_OPTS=("${SB_OLTP[@]}" --skip-trx=on)
if [ "$SAME_TABLE" = 1 ]; then
  SB_SCRIPT=$(mktemp --suffix=.lua)
  trap 'rm -f "$SB_SCRIPT"' EXIT
  # The statement of dbharness's select-only, prepared once per thread.
  cat >"$SB_SCRIPT" <<EOF
function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
  stmt = con:prepare("SELECT abalance FROM pgbench_accounts WHERE aid = ?")
  aid = stmt:bind_create(sysbench.sql.type.INT)
  stmt:bind_param(aid)
end
function event()
  aid:set(sysbench.rand.uniform(1, $ROWS))
  stmt:execute()
end
function thread_done()
  stmt:close()
  con:disconnect()
end
EOF
  SB_OPTS=()
  echo "== sysbench runs $SB_SCRIPT: SELECT abalance FROM pgbench_accounts WHERE aid = ? (the same table and statement)"
fi

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
TIMEF=$(mktemp)
# timed CMD... : runs CMD and prints "wall cpu" from its rusage.
timed() {
  /usr/bin/time -f "%e %U %S" -o "$TIMEF" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
  awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$TIMEF"
}

for transport in $TRANSPORTS; do
  case $transport in
    tcp)
      url="mysql://$MYSQL_USER@127.0.0.1:3306/$DB?tls=false"
      sb_conn=(--mysql-host=127.0.0.1 --mysql-port=3306) ;;
    socket)
      url="mysql://$MYSQL_USER@/$DB?socket=$SOCK&tls=false"
      sb_conn=(--mysql-host=localhost --mysql-socket="$SOCK") ;;
    *) echo "unknown transport $transport (tcp or socket)" >&2; exit 2 ;;
  esac
  dbh=("$BIN" run tpcb --db "$url" --mix select-only --clients "$CLIENTS" --transactions "$TX" --collect none --no-save --no-doctor --progress 0)
  [ -n "$LOOPS" ] && dbh+=(--loops "$LOOPS")
  sb=(sysbench "$SB_SCRIPT" "${SB_COMMON[@]}" ${SB_OPTS[@]+"${SB_OPTS[@]}"} "${sb_conn[@]}" --threads="$CLIENTS" --events="$EVENTS" --time=0 run)
  echo "== $transport: $PAIRS pairs of $CLIENTS clients x $TX select-only transactions"
  # One unmeasured run of each warms the buffer pool and the page cache.
  timed "${dbh[@]}" >/dev/null
  timed "${sb[@]}" >/dev/null
  wr=(); cr=()
  for i in $(seq 1 "$PAIRS"); do
    if [ $((i % 2)) = 1 ]; then s=$(timed "${sb[@]}"); d=$(timed "${dbh[@]}")
    else d=$(timed "${dbh[@]}"); s=$(timed "${sb[@]}"); fi
    read -r dw dc <<<"$d"; read -r sw sc <<<"$s"
    wr+=("$(awk -v a="$dw" -v b="$sw" 'BEGIN{printf "%.3f", a/b}')")
    cr+=("$(awk -v a="$dc" -v b="$sc" 'BEGIN{printf "%.3f", a/b}')")
    printf "  pair %d: dbharness %6.2fs wall %6.2fs CPU (%5.1f us/tx) | sysbench %6.2fs wall %6.2fs CPU (%5.1f us/tx) | wall %sx CPU %sx\n" \
      "$i" "$dw" "$dc" "$(awk -v c="$dc" -v n="$EVENTS" 'BEGIN{print c*1e6/n}')" \
      "$sw" "$sc" "$(awk -v c="$sc" -v n="$EVENTS" 'BEGIN{print c*1e6/n}')" "${wr[-1]}" "${cr[-1]}"
  done
  spread() { printf '%s\n' "$@" | sort -g | awk 'NR==1{lo=$1} {hi=$1} END{printf "%s-%s", lo, hi}'; }
  printf "%s: dbharness/sysbench median wall %sx (spread %s), median CPU %sx (spread %s) over %d pairs\n" \
    "$transport" "$(printf '%s\n' "${wr[@]}" | median)" "$(spread "${wr[@]}")" \
    "$(printf '%s\n' "${cr[@]}" | median)" "$(spread "${cr[@]}")" "$PAIRS"
done
rm -f "$TIMEF"
