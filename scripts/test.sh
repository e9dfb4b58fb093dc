#!/usr/bin/env bash
# The whole test suite: formatting, vet, and every test with the race
# detector against the real PostgreSQL and MariaDB of this machine. It
# starts the servers when they are down and fails loudly if it cannot.
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
go vet ./...
# Tests share the two servers; -p 2 keeps two packages at a time on this
# 2-core machine.
go test -race -p 2 -timeout 40m -count=1 ./...
