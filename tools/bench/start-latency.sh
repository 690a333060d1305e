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
takes=${1:-5}
size=${2:-1280x720}
. tools/bench/two-agents.sh
start_two_agents bench --size "$size"
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
