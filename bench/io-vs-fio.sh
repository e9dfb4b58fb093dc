#!/usr/bin/env bash
# dbharness io against fio on the same directory, pattern by pattern.
#
# For each pattern, fio and `dbharness io` do the same work — the same block
# size, queue depth (fio: numjobs psync jobs on regions of one file, as
# dbharness's goroutines), direct flag and size — in $PAIRS alternating
# pairs (bench/iofio). Each tool reports its own bandwidth, IOPS and p99
# latency for its measured phase; the lines print the ratios
# dbharness/fio (median and range over the pairs) and each process's CPU
# time (rusage of the child). The target is within 5% of fio wherever the
# two do the same work; seqwrite extend is shown beside overwrite because
# the two tools do not do the same work there (see its note).
#
# Patterns: seqwrite 1MiB (overwrite, then extend), seqread and randread
# 8KiB at each of $DEPTHS, and 4KiB log writes each followed by fdatasync.
#
# Usage: bench/io-vs-fio.sh                       (DIR=/var/tmp SIZE=256MiB DEPTHS=1,4,16 PAIRS=5 DIRECT=1)
#        DIR=/data SIZE=1GiB DIRECT=0 bench/io-vs-fio.sh
#        ONLY=randread bench/io-vs-fio.sh          (only the patterns whose name contains it)
# Run it on a quiet machine: other processes' I/O on the device moves both sides.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${DIR:-/var/tmp}
SIZE=${SIZE:-256MiB}
DEPTHS=${DEPTHS:-1,4,16}
PAIRS=${PAIRS:-5}
DIRECT=${DIRECT:-1}
LOG_WRITES=${LOG_WRITES:-2000}
ONLY=${ONLY:-}

if ! command -v fio >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    echo "io-vs-fio: installing fio (Debian's package)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fio >/dev/null
  fi
  command -v fio >/dev/null 2>&1 || { echo "io-vs-fio: fio is missing (apt-get install -y fio)" >&2; exit 1; }
fi

TMP=$(mktemp -d)
WORK=$(mktemp -d "$DIR/io-vs-fio.XXXXXX")
trap 'rm -rf "$TMP" "$WORK"' EXIT
go build -o "$TMP/dbharness" ./cmd/dbharness
go build -o "$TMP/iofio" ./bench/iofio

echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores, $(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo)"
echo "   $DIR: $(df -hT "$DIR" | awk 'NR==2{print $2" on "$1", "$5" used"}'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
direct=-direct=true
[ "$DIRECT" = 0 ] && direct=-direct=false
"$TMP/iofio" -dbharness "$TMP/dbharness" -dir "$WORK" -size "$SIZE" -depths "$DEPTHS" -n "$PAIRS" $direct \
  -log-writes "$LOG_WRITES" -only "$ONLY"
echo "   load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
