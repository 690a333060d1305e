#!/usr/bin/env bash
# How true the shared clock is over a real (emulated) network: for each path, a rig of
# three network namespaces joined by the jitter switch (tools/netns/rig.sh --switch), a
# host agent and a guest agent whose clock is simulated 37 ms off and 80 ppm fast, both
# with genlocked synthetic sources, and a take of DURATION seconds (default 60) at
# 640x360. The clocks' true error is read by the coordinator from the frames' DCTC codes
# (manifest.json, clockTruth); the table prints it per camera with the worst pair error
# and the error bound the agents reported.
#
#   sudo tools/bench/clock-network.sh [DURATION] [PATH-NAME …]
#
# Paths: bridge (no switch), lan (1 ms ± 0.5 ms each way), lossy (lan + 5 % loss + 2 %
# spikes of 20 ms), wifi (5 ms ± 3 ms), asym (no jitter, but a constant 0.3 ms towards the
# coordinator: the one error no exchange can see, half of it). Release build (built here). Needs root, like the multi-host tests.
# With chronyd installed (Debian's chrony), each path also measures chrony as the outside
# reference: a chronyd on the host's namespace polling the coordinator's every 62.5 ms
# (poll -4) without touching the clock (-x); every namespace shares the same clock, so
# the offset it believes the clock has ("System time" of `chronyc tracking`, read each
# second) is its error, and |System time| + Root delay/2 + Root dispersion is the bound
# chrony itself gives on it (chronyc's documentation).
# The host agent's clock log is replayed through the estimator (`dualcam-bench
# clock-replay --same-clock`): its clock is the coordinator's, so the error of every
# estimate is known to the nanosecond, not to the DCTC code's 100 µs step.
set -euo pipefail
cd "$(dirname "$0")/../.."
duration=${1:-60}
shift || true
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(bridge lan lossy wifi asym)
[ "$(id -u)" -eq 0 ] || { echo "clock-network: needs root (network namespaces)" >&2; exit 1; }

declare -A SWITCH=(
  [bridge]=""
  [lan]="-d 1000 -j 500 -R"
  [lossy]="-d 1000 -j 500 -l 5 -p 2 -s 20000 -R"
  [wifi]="-d 5000 -j 3000 -R"
  [asym]="-d 0 -j 0 -R"
)
# A path slower one way on *average* (N(1.3 ms) against N(1 ms), both clipped at 0) does
# not bias a minimum-delay estimate: both directions still reach the floor. What it cannot
# see is a difference of the floors, so asym is a constant 0.3 ms towards the coordinator.
declare -A EXTRA=([asym]="--path coord=300,0,0,0,0")

# DUALCAM_BENCH_CONFIG=debug uses the debug build; DUALCAM_BENCH_KEEP=1 keeps the sessions;
# DUALCAM_BENCH_CHRONY=0 skips chrony; DUALCAM_CLOCK_LANE=off keeps the clock pings on the TLS connection (no UDP lane, as
# before protocol 1.7), for comparison.
config=${DUALCAM_BENCH_CONFIG:-release}
. deploy/swift-env.sh
swift build -c "$config" --product dualcam-coordinator >/dev/null
swift build -c "$config" --product dualcam-agent >/dev/null
swift build -c "$config" --product dualcam-bench >/dev/null
bin=$(swift build -c "$config" --show-bin-path)
rig=tools/netns/rig.sh
work=$(mktemp -d /tmp/dualcam-clocknet.XXXXXX)
prefix=""
cleanup() {
  [ -n "$prefix" ] && bash $rig down "$prefix" >/dev/null 2>&1
  if [ -n "${DUALCAM_BENCH_KEEP:-}" ]; then echo "sessions kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

chrony_run() {  # PREFIX SECONDS -> "median p99 bound-p99" of chrony's true error and own bound in µs, or "- - -"
  local p=$1 seconds=$2 dir=$work/chrony
  { command -v chronyd >/dev/null && [ "${DUALCAM_BENCH_CHRONY:-1}" != 0 ]; } || { echo "- - -"; return; }
  mkdir -p "$dir"
  chmod 700 "$dir"
  cat > "$dir/server.conf" <<CONF
local stratum 1
allow 10.77.0.0/24
port 123
cmdport 0
pidfile $dir/server.pid
driftfile $dir/server.drift
CONF
  cat > "$dir/client.conf" <<CONF
server 10.77.0.10 iburst minpoll -4 maxpoll -4 xleave
cmdport 0
bindcmdaddress $dir/client.sock
pidfile $dir/client.pid
driftfile $dir/client.drift
CONF
  bash $rig exec "$p-coord" chronyd -x -d -u root -f "$dir/server.conf" >"$dir/server.log" 2>&1 &
  local server=$!
  bash $rig exec "$p-host" chronyd -x -d -u root -f "$dir/client.conf" >"$dir/client.log" 2>&1 &
  local client=$!
  # With -x chronyd leaves the clock alone and keeps its correction to itself: "System
  # time" (tracking's fifth field) is how far it believes the clock is from the
  # server's. Every namespace reads the same kernel clock, so that belief is its error.
  : > "$dir/tracking.csv"
  for _ in $(seq "$seconds"); do
    sleep 1
    chronyc -h "$dir/client.sock" -c tracking >>"$dir/tracking.csv" 2>/dev/null || true
  done
  kill "$client" "$server" 2>/dev/null; wait "$client" "$server" 2>/dev/null || true
  # The first sixth of the run is chrony's own lock, as the agents' is before the take.
  python3 - "$dir/tracking.csv" <<'PY'
import sys
rows = [l.split(",") for l in open(sys.argv[1]) if l.count(",") > 11]
rows = rows[len(rows) // 6:]
v = sorted(abs(float(r[4])) * 1e6 for r in rows)
b = sorted((abs(float(r[4])) + float(r[10]) / 2 + float(r[11])) * 1e6 for r in rows)
print(f"{v[len(v)//2]:.0f} {v[(len(v)-1)*99//100]:.0f} {b[(len(b)-1)*99//100]:.0f}" if v else "- - -")
PY
}

printf '%-8s %-34s %16s %16s %8s %12s %10s %8s %10s %10s\n' path switch "host µs" "guest µs" "pair µs" "host exact µs" "bound p99" "dropped" "chrony µs" "chr. bound"
for name in "${names[@]}"; do
  opts=${SWITCH[$name]:-}
  args=()
  [ -n "$opts" ] && args+=(--switch "$opts")
  # shellcheck disable=SC2206 # the extra options are words
  [ -n "${EXTRA[$name]:-}" ] && args+=(${EXTRA[$name]})
  prefix=$(bash $rig up "${args[@]}")
  run=$((${run:-0} + 1))
  root=$work/$run-$name
  mkdir -p "$root"
  coordinator_id=$(bash $rig exec "$prefix-coord" "$bin/dualcam-coordinator" id --state "$root/coordinator")
  pids=()
  for role in host guest; do
    clock=()
    [ $role = guest ] && clock=(--simulate-clock-offset-ms 37 --simulate-clock-skew-ppm 80)
    bash $rig exec "$prefix-$role" "$bin/dualcam-agent" run --source synthetic --role $role --name "cn-$role" \
      --state "$root/$role" --trust "$coordinator_id" "${clock[@]}" --clock-log "$root/$role.clock" \
      >"$root/$role.out" 2>"$root/$role.log" &
    pids+=($!)
  done
  ids=()
  for role in host guest; do
    for _ in $(seq 100); do grep -q LISTENING "$root/$role.out" 2>/dev/null && break; sleep 0.1; done
    ids+=(--agent "$(grep LISTENING "$root/$role.out" | sed 's/.*id=\([^ ]*\).*/\1/')")
  done
  bash $rig exec "$prefix-coord" "$bin/dualcam-coordinator" start "${ids[@]}" --state "$root/coordinator" \
    --out "$root/out" --countdown 0 --size 640x360 --duration "$duration" >"$root/coordinator.out" 2>"$root/coordinator.log" \
    || { echo "$name: the take failed:"; tail -20 "$root/coordinator.log"; }
  kill -INT "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null || true
  chrony=$(chrony_run "$prefix" "$duration")
  manifest=$(ls "$root"/out/*/manifest.json 2>/dev/null | head -1)
  replay=$("$bin/dualcam-bench" clock-replay "$root/host.clock" --same-clock 2>/dev/null || true)
  echo "  host replay: ${replay#*: }" >&2
  python3 - "$manifest" "$name" "$opts${EXTRA[$name]:+ ${EXTRA[$name]}}" "$chrony" "$root/host.clock" "$replay" <<'PY'
import json, re, sys
path, name, opts, chrony, hostlog, replay = sys.argv[1:7]
# The host agent's clock is the coordinator's (one kernel, no simulated error), so its
# logged exchanges give both one-way delays as measured: any difference of their floors
# is a bias no exchange can see.
try:
    rows = [l.split() for l in open(hostlog)]
    ex = [(r[0], *map(int, r[1:5])) for r in rows if len(r) == 5]
except (OSError, ValueError):
    ex = []
def q(v, p): return sorted(v)[min(len(v) - 1, int(p * (len(v) - 1)))] if v else float("nan")
lanes = {k for k, *_ in ex}
outs = [(t2 - t1) / 1e3 for _, t1, t2, t3, t4 in ex]
backs = [(t4 - t3) / 1e3 for _, t1, t2, t3, t4 in ex]
offs = [((t2 - t1) + (t3 - t4)) / 2e3 for _, t1, t2, t3, t4 in ex]
print(f"  host exchanges: {len(ex)} via {'+'.join(sorted(lanes)) or '-'}; one-way out min/median {q(outs,0):.0f}/{q(outs,.5):.0f} µs, "
      f"back {q(backs,0):.0f}/{q(backs,.5):.0f} µs; exchange offset median {q(offs,.5):.0f} µs", file=sys.stderr)
try:
    m = json.load(open(path))
except (OSError, ValueError):
    print(f"{name:<8} {opts:<34} no manifest"); sys.exit()
truth = {c["camera"]: c for c in (m.get("clockTruth") or {}).get("cameras", [])}
def cell(role):
    c = next((v for k, v in truth.items() if k.endswith(role)), None)
    e = c["trueError"] if c else None
    return f'{e["p50Microseconds"]:.0f}/{e["p99Microseconds"]:.0f} ({e["meanMicroseconds"]:+.0f})' if e else "-"
pair = max((c["pairError"]["maxMicroseconds"] for c in truth.values() if c.get("pairError")), default=float("nan"))
bounds = [c["statistics"].get("clockOverSession", {}).get("errorBoundP99Microseconds", float("nan")) for c in m["cameras"]]
dropped = "+".join(str(c["statistics"]["framesDropped"]) for c in m["cameras"])
ch = chrony.split()
exact = re.search(r"true error median/p99/max (\d+)/(\d+)/", replay)
exact = f"{exact[1]}/{exact[2]}" if exact else "-"
print(f"{name:<8} {opts or 'bridge':<34} {cell('host'):>16} {cell('guest'):>16} {pair:>8.0f} {exact:>12} {max(bounds):>10.0f} {dropped:>8} {'/'.join(ch[:2]):>10} {ch[2]:>10}")
PY
  bash $rig down "$prefix" >/dev/null
  prefix=""
done
echo "(host and guest: true error median/p99 (signed mean) over the take, read from the frame codes; host exact: the host agent's"
echo " true error median/p99 from its replayed clock log, to the nanosecond; bound p99: the highest of the agents' error bounds"
echo " over the take; chrony: median/p99 of its error, the clock offset it believes in, and p99 of the bound it gives)"
