#!/usr/bin/env bash
# StartAt-to-first-frame benchmark (issue 14: Prepare opens the source and the encoder).
# Runs two release agents with synthetic sources on loopback and records N short takes
# with no countdown from one coordinator; for each take and agent it prints, from the
# agents' own logs: how long Prepare took to open the source and encoder and capture the
# first frame (the work that, before Prepare did it, came after StartAt), how far ahead
# of T0 the StartAt arrived, and when the first frame was stored after T0 and after
# StartAt.
#   usage: tools/bench/start-latency.sh [TAKES] [WxH]     (default: 5 1280x720)
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/swift-env.sh
takes=${1:-5}
size=${2:-1280x720}
swift build -c release --product dualcam-coordinator >/dev/null
swift build -c release --product dualcam-agent >/dev/null
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d /tmp/dualcam-start-bench.XXXXXX)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
coordinator_id=$("$bin/dualcam-coordinator" id --state "$work/coordinator")
targets=()
for role in host guest; do
    "$bin/dualcam-agent" run --source synthetic --role "$role" --name "bench-$role" --listen 127.0.0.1 --port 0 \
        --no-mdns --state "$work/$role" --trust "$coordinator_id" --size "$size" >"$work/$role.out" 2>"$work/$role.log" &
    pids+=($!)
done
for role in host guest; do
    for _ in $(seq 100); do grep -q LISTENING "$work/$role.out" 2>/dev/null && break; sleep 0.1; done
    line=$(grep LISTENING "$work/$role.out")
    port=$(echo "$line" | sed 's/.*port=\([0-9]*\).*/\1/')
    id=$(echo "$line" | sed 's/.*id=\([^ ]*\).*/\1/')
    targets+=(--agent "127.0.0.1:$port,$id")
done
for take in $(seq "$takes"); do
    "$bin/dualcam-coordinator" start "${targets[@]}" --state "$work/coordinator" --out "$work/out" \
        --duration 2 --countdown 0 --size "$size" >/dev/null 2>"$work/take$take.log"
done
sleep 1
printf '%-6s %-14s %-16s %-20s %-20s\n' agent prepare-s startat-lead-ms first-frame-after-T0 first-frame-after-StartAt
for role in host guest; do
    paste -d' ' <(grep -o 'prepared [^ ]* in [0-9.]* s' "$work/$role.log" | awk '{print $4}') \
                <(grep -o 'first frame stored .*' "$work/$role.log" |
                  sed 's/first frame stored \([0-9.-]*\) ms after T0, \([0-9.-]*\) ms after StartAt arrived (T0 was \([0-9.-]*\) ms ahead)/\1 \2 \3/') |
    while read -r prepare late fromstart lead; do
        printf '%-6s %-14s %-16s %-20s %-20s\n' "$role" "$prepare" "$lead" "$late ms" "$fromstart ms"
    done
done
