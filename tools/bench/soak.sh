#!/usr/bin/env bash
# Many takes back to back on one `serve` rig with two release agents (synthetic pictures
# and sound) on this machine: every 10 takes, each process's open files and resident
# memory, then the growth over all takes but the first ten (issue 22: ≤ 2 MB over the last
# 90 of 100). Environment variables reach the agents (e.g. MALLOC_ARENA_MAX=2).
#   usage: tools/bench/soak.sh [TAKES] [SECONDS-PER-TAKE] [WxH]     (default: 100 1 320x240)
set -euo pipefail
cd "$(dirname "$0")/../.."
takes=${1:-100}
seconds=${2:-1}
size=${3:-320x240}
. tools/bench/two-agents.sh
start_two_agents soak --prune-acknowledged
mkfifo "$work/commands"
"$bin/dualcam-coordinator" serve "${targets[@]}" --state "$work/coordinator" --out "$work/out" --duration "$seconds" \
    --countdown 0 --size "$size" <"$work/commands" >"$work/serve.out" 2>"$work/serve.log" &
serve=$!
pids+=($serve)
exec 3>"$work/commands"
for _ in $(seq 300); do grep -q "rig up" "$work/serve.log" 2>/dev/null && break; sleep 0.1; done
figures() { # pid -> "files kB"
    echo "$(ls /proc/$1/fd | wc -l) $(awk '/VmRSS/ {print $2}' /proc/$1/status)"
}
printf '%-6s %-22s %-22s %-22s\n' take coordinator host-agent guest-agent
declare -a first
for take in $(seq "$takes"); do
    echo start >&3
    for _ in $(seq 600); do
        [ "$(grep -c '^coordinator: ' "$work/serve.out" || true)" -ge "$take" ] && break
        sleep 0.1
    done
    if [ "$(grep -c '^coordinator: ' "$work/serve.out" || true)" -lt "$take" ]; then
        echo "take $take did not end; serve's log:"; tail -20 "$work/serve.log"; exit 1
    fi
    if [ $((take % 10)) -eq 0 ] || [ "$take" -eq 1 ]; then
        c=$(figures $serve); h=$(figures "${pids[0]}"); g=$(figures "${pids[1]}")
        printf '%-6s %-22s %-22s %-22s\n' "$take" "${c% *} files ${c#* } kB" "${h% *} files ${h#* } kB" "${g% *} files ${g#* } kB"
        if [ "$take" -eq 10 ]; then first=("${c#* }" "${h#* }" "${g#* }"); fi
        last=("${c#* }" "${h#* }" "${g#* }")
    fi
done
echo quit >&3
sessions=$(ls "$work/out" | wc -l)
echo "sessions written: $sessions of $takes"
if [ "${#first[@]}" -eq 3 ]; then
    echo "growth from take 10 to take $takes: coordinator $(( last[0] - first[0] )) kB, host agent $(( last[1] - first[1] )) kB, guest agent $(( last[2] - first[2] )) kB"
fi
