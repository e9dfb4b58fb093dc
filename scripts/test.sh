#!/usr/bin/env bash
# The whole test suite: formatting, vet, and every test with the race
# detector against the real PostgreSQL and MariaDB of this machine and a
# SQL Server (a private Babelfish). It starts the servers when they are down
# and fails loudly if it cannot.
set -euo pipefail
cd "$(dirname "$0")/.."

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
my_up() { mysqladmin -h 127.0.0.1 -P 3306 -u root --connect-timeout=2 ping >/dev/null 2>&1; }

if ! pg_up; then
  echo "test.sh: starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
fi
if ! my_up; then
  echo "test.sh: starting MariaDB"
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd || true
fi
for i in $(seq 1 60); do
  pg_up && my_up && break
  sleep 1
done
pg_up || { echo "test.sh: FAIL: PostgreSQL is not reachable at 127.0.0.1:5432" >&2; exit 1; }
my_up || { echo "test.sh: FAIL: MariaDB is not reachable at 127.0.0.1:3306" >&2; exit 1; }

# SQL Server: $DBHARNESS_TEST_SQLSERVER names any SQL Server or Babelfish
# (a sqlserver:// URL with an administrator login); else a private Babelfish
# for PostgreSQL is started from $DBHARNESS_BABELFISH_DIR, or else from the
# nearest shared/babelfish beside the repository or above it (this team's
# ../shared/babelfish, wherever a clone sits below it), on its own ports,
# its data under the temporary directory (start.sh leaves a running one
# running). It is left running
# for the next suite, like the machine's PostgreSQL and MariaDB.
if [ -z "${DBHARNESS_TEST_SQLSERVER:-}" ]; then
  bbf=${DBHARNESS_BABELFISH_DIR:-}
  if [ -z "$bbf" ]; then
    d=$(cd .. && pwd)
    bbf=$d/shared/babelfish
    while [ "$d" != / ]; do
      if [ -x "$d/shared/babelfish/start.sh" ]; then bbf=$d/shared/babelfish; break; fi
      d=$(dirname "$d")
    done
  fi
  if [ ! -x "$bbf/start.sh" ]; then
    echo "test.sh: FAIL: no SQL Server to test on: set DBHARNESS_TEST_SQLSERVER to the sqlserver:// URL of a SQL Server or Babelfish (an administrator login), or DBHARNESS_BABELFISH_DIR to a directory with Babelfish's start.sh (none at $bbf)" >&2
    exit 1
  fi
  bbf_dir=${DBHARNESS_BABELFISH_DATA:-${TMPDIR:-/tmp}/dbharness-babelfish-$(id -u)}
  echo "test.sh: starting Babelfish (TDS 14330, PostgreSQL 54990) in $bbf_dir"
  url=$("$bbf/start.sh" "$bbf_dir" 14330 54990 | tail -1) || { echo "test.sh: FAIL: Babelfish did not start from $bbf" >&2; exit 1; }
  case $url in
    sqlserver://*) export DBHARNESS_TEST_SQLSERVER=$url
      # Its PostgreSQL side, for --server-evidence's tests.
      export DBHARNESS_TEST_BABELFISH_PG=${DBHARNESS_TEST_BABELFISH_PG:-postgres://dbharness:dbharness@127.0.0.1:54990/babelfish_db} ;;
    *) echo "test.sh: FAIL: Babelfish's start.sh printed no sqlserver:// URL" >&2; exit 1 ;;
  esac
  # Every init on Babelfish ends with sp_updatestats, which there is a bare
  # ANALYZE of the whole instance: of every test's database at once. At the
  # default statistics target each took about 10 s of the host's CPU beside
  # the tpcc tests (2026-12-06); sampling 3,000 rows a table instead of
  # 30,000 cut those tests' CPU by a fifth. No test reads Babelfish's plans.
  psql "$DBHARNESS_TEST_BABELFISH_PG" -qX -c "ALTER SYSTEM SET default_statistics_target = 10" -c "SELECT pg_reload_conf()" >/dev/null ||
    echo "test.sh: warning: could not lower Babelfish's statistics target; the SQL Server tests run slower" >&2
fi

# need CMD PACKAGE WHY [APT-OPTIONS]: Debian's PACKAGE provides CMD, which
# the tests use for WHY; install it when it is missing and we may (as root),
# else stop and say how.
need() {
  local cmd=$1 pkg=$2 why=$3
  shift 3
  command -v "$cmd" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ]; then
    echo "test.sh: installing $pkg for $why"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" "$pkg" >/dev/null
  fi
  command -v "$cmd" >/dev/null 2>&1 || { echo "test.sh: FAIL: $cmd is missing (apt-get install -y $pkg)" >&2; exit 1; }
}

# The HTML report tests open reports in headless Chromium; CHROMIUM names
# another browser and installs nothing.
[ -n "${CHROMIUM:-}" ] || need chromium chromium "the HTML report tests"
# The pgbench script tests run pgbench itself beside dbharness.
need pgbench postgresql-client "the pgbench script tests"
# The live-metrics tests start their own Prometheus (2.42 on bookworm): only
# the binary is used, with the tests' own configuration, storage and port.
need prometheus prometheus "the live-metrics tests" --no-install-recommends
# The server-CPU test profiles the shared PostgreSQL with Linux perf.
need perf linux-perf "the server-CPU profile test"

unformatted=$(gofmt -l cmd internal)
if [ -n "$unformatted" ]; then
  echo "test.sh: FAIL: gofmt would change:" >&2
  echo "$unformatted" >&2
  exit 1
fi
# -trimpath leaves the clone's directory out of the compiled packages, so
# that the build cache serves a fresh clone elsewhere (CI's) the packages
# an earlier run compiled: without it every new clone compiled and vetted
# all of this module's packages again, about 120 s of CPU of a suite on
# 2026-12-06. GOFLAGS carries it to the go commands the tests run
# (internal/cli builds its dbharness binary).
# The environment's GOFLAGS when set, else go env's (asked only then: with
# -json among them, go env would answer in JSON).
gf=${GOFLAGS-$(go env GOFLAGS)}
export GOFLAGS="${gf:+$gf }-trimpath"
# A race-built program sleeps a second before it exits (the race
# detector's atexit_sleep_ms), to catch races among goroutines still running
# as main returns. Every test binary and every dbharness binary that
# internal/cli runs (about 750 per suite) paid it: pgbench's script test
# took 61 s with it and 40 s without, at the same CPU (11 s), and the quiet
# suite 11 min 48 s with it and 10 min 2 s without (2026-12-06).
export GORACE="${GORACE:+$GORACE }atexit_sleep_ms=0"
go vet ./...
# Tests share the servers; -p 2 keeps two packages at a time on this
# 2-core machine. Most tests wait on a server or a subprocess rather than
# compute, so each package runs up to eight of its parallel tests at once
# (go test's default is one per CPU; at four, internal/cli alone took 7.4
# of the suite's 25 quiet minutes). The packages that take longest are named
# first, longest first, so that go test starts them first and the short ones
# fill in around them at the end (./... alone runs them in the order of
# their names, and the workloads' come last: on 2026-12-06 the last two
# lanes' packages, inserts and tpcb, ran a minute after the rest had ended).
# SQLite's engine, modernc.org/sqlite/lib (SQLite's C translated to Go),
# is compiled without the race detector's instrumentation; everything else,
# modernc's libc included, keeps it. Instrumented, SQLite ran the tests'
# queries 10 to 15 times slower: tpch's package took 219 s of a quiet suite
# on 2026-12-06 and 19 s without it (run alone), and tpcc's SQLite tests
# could only load a reduced population. Leaving modernc's libc out as well
# made the detector report races inside the standard library's TLS
# certificate cache in two runs out of two; with lib alone left out, none
# in three runs of tpcc's tests. The k8sjob package builds a static binary
# from scratch (its Dockerfile test), so it starts early.
slow="./internal/cli ./internal/workload/tpcc ./internal/k8sjob ./internal/runner ./internal/workload/tpch ./internal/workload/inserts ./internal/workload/file ./internal/report ./internal/collect ./internal/workload/tpcb ./internal/workload/transtats ./internal/loadgen ./internal/analysis"
go test -race -gcflags=modernc.org/sqlite/lib=-race=false -p 2 -parallel 8 -timeout 40m -count=1 $slow ./...
