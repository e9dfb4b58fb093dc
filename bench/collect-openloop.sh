#!/usr/bin/env bash
# collect-openloop.sh: the evidence collectors' cost at a fixed open-loop
# rate, where throughput is set by the schedule and cannot show it: the
# cost shows as CPU per transaction instead, the client's (getrusage of the
# harness) and the server's (utime + stime of every PostgreSQL process,
# from /proc, with the postmaster's reaped children for the backends
# that ended), which CPU accounting measures steadily even on a shared
# machine. Alternating pairs of --collect none and --collect $KIND at
# $RATE tps for $SECS s each, select-only over the Unix socket; prints each
# pair and the median ratio (B/A) of client, server and total CPU per
# transaction, with the range; then the CPU of the collectors' own server
# backends (application_name dbharness-collector, from /proc) during B.
#
#   bench/collect-openloop.sh              (RATE=8000 SECS=20 PAIRS=7 CLIENTS=8 KIND=os,server,waits)
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${PG:-postgres://postgres@127.0.0.1:5432}
SOCK=${SOCK:-/var/run/postgresql}
DB=${DB:-dbh_ev_openloop}
RATE=${RATE:-8000}
SECS=${SECS:-20}
PAIRS=${PAIRS:-7}
CLIENTS=${CLIENTS:-8}
KIND=${KIND:-os,server,waits}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/dbharness" ./cmd/dbharness
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
"$TMP/dbharness" init tpcb --db "$PG/$DB?sslmode=disable" --scale 10 >/dev/null 2>&1
echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); dbharness $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "== --collect none (A) against --collect $KIND (B): select-only, $CLIENTS clients, open loop at $RATE tps for $SECS s, Unix socket"
python3 - "$TMP/dbharness" "postgres://postgres@/$DB?host=$SOCK" "$RATE" "$SECS" "$PAIRS" "$CLIENTS" "$KIND" "$TMP" <<'PY'
import json, os, resource, statistics, subprocess, sys, time
bin_, url, rate, secs, pairs, clients, kind, tmp = sys.argv[1:]
tick = os.sysconf("SC_CLK_TCK")
def server_cpu():
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() != "postgres":
                    continue
            with open(f"/proc/{pid}/stat") as f:
                st = f.read().rsplit(")", 1)[1].split()
            # utime, stime, and cutime, cstime (fields 14-17): the
            # postmaster's children's CPU holds that of backends that ended.
            total += int(st[11]) + int(st[12]) + int(st[13]) + int(st[14])
        except (FileNotFoundError, ProcessLookupError, IndexError):
            pass
    return total / tick
def proc_cpu(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            st = f.read().rsplit(")", 1)[1].split()
        return (int(st[11]) + int(st[12])) / tick
    except (FileNotFoundError, ProcessLookupError):
        return None
collector_ms = []  # the collectors' own server backends, ms of CPU per second
def collectors_cpu(proc):
    # The collectors' sessions are named dbharness-collector: read their
    # backends' CPU over the middle of the run.
    time.sleep(min(4, int(secs) / 4))
    out = subprocess.run(["psql", url, "-Atc", "SELECT pid FROM pg_stat_activity WHERE application_name = 'dbharness-collector'"],
                         capture_output=True, text=True).stdout.split()
    t0, c0 = time.time(), {p: proc_cpu(p) for p in out}
    time.sleep(max(1, int(secs) / 2))
    t1, c1 = time.time(), {p: proc_cpu(p) for p in out}
    used = sum(c1[p] - c0[p] for p in out if c0[p] is not None and c1[p] is not None)
    if out:
        collector_ms.append(1000 * used / (t1 - t0))
def one(collect):
    js = os.path.join(tmp, "run.json")
    s0, r0 = server_cpu(), resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen([bin_, "run", "tpcb", "--db", url, "--mix", "select-only", "-c", clients, "--rate", rate, "-T", secs + "s",
                             "--no-save --no-doctor", "--progress", "0", "--collect", collect, "--json", js],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if collect != "none":
        collectors_cpu(proc)
    if proc.wait() != 0:
        sys.exit(f"collect-openloop.sh: a run with --collect {collect} failed")
    r1, s1 = resource.getrusage(resource.RUSAGE_CHILDREN), server_cpu()
    n = json.load(open(js))["summary"]["transactions"]
    client = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return n, 1e6 * client / n, 1e6 * (s1 - s0) / n
ratios = {"client": [], "server": [], "total": []}
for i in range(int(pairs)):
    order = ["none", kind] if i % 2 == 0 else [kind, "none"]
    got = {c: one(c) for c in order}
    (na, ca, sa), (nb, cb, sb) = got["none"], got[kind]
    ratios["client"].append(cb / ca); ratios["server"].append(sb / sa); ratios["total"].append((cb + sb) / (ca + sa))
    print(f"  pair {i+1}: A {na} tx, {ca:.1f} + {sa:.1f} µs CPU/tx (client + server) | B {nb} tx, {cb:.1f} + {sb:.1f} µs CPU/tx")
for k, v in ratios.items():
    print(f"  {k} CPU per transaction B/A: median {statistics.median(v):.3f} [{min(v):.3f}–{max(v):.3f}]")
if collector_ms:
    m = statistics.median(collector_ms)
    print(f"  the collectors' own server backends: median {m:.1f} ms of CPU per second [{min(collector_ms):.1f}–{max(collector_ms):.1f}], "
          f"{m / (10 * os.cpu_count()):.2f}% of the machine's {os.cpu_count()} cores")
PY
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null
