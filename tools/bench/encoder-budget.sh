#!/usr/bin/env bash
# What `--preset auto` buys a node short of CPU: one agent recording the synthetic source
# locally (`dualcam-agent record`, the same pipeline as a coordinated take) inside a CPU
# quota of 100 %, 60 %, 40 % and 25 % of one core, with the fixed old default `veryfast`
# against `auto`; then the same with the budget cut from 100 % to 30 % a third of the way
# into the take. Prints a markdown table: frames recorded and dropped, the preset auto
# chose and switched to, and kB per second at the CRF (the quality bought with the time).
#
#   sudo tools/bench/encoder-budget.sh [SECONDS] [SIZES] [BUDGETS]
#   e.g. sudo tools/bench/encoder-budget.sh 60 "1280x720 1920x1080" "100 60 40 25"
#
# Needs root for the cgroup: v1's cpu.cfs_quota_us where mounted (these machines), else
# v2's cpu.max. DUALCAM_BENCH_CONFIG=debug uses the debug build (x264 itself is the same).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
sizes=${2:-"1280x720 1920x1080"}
budgets=${3:-"100 60 40 25"}
config=${DUALCAM_BENCH_CONFIG:-release}

. deploy/swift-env.sh
swift build -c "$config" --product dualcam-agent >/dev/null
agent="$(swift build -c "$config" --show-bin-path)/dualcam-agent"
work=$(mktemp -d /tmp/dualcam-budget.XXXXXX)

if [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
    group=/sys/fs/cgroup/cpu/dualcam-budget
    mkdir -p "$group"
    echo 100000 >"$group/cpu.cfs_period_us"
    set_budget() { echo $(($1 * 1000)) >"$group/cpu.cfs_quota_us"; }
elif [ -f /sys/fs/cgroup/cpu.max ]; then
    group=/sys/fs/cgroup/dualcam-budget
    mkdir -p "$group"
    echo +cpu >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
    set_budget() { echo "$(($1 * 1000)) 100000" >"$group/cpu.max"; }
else
    echo "error: no cgroup cpu controller (v1 cpu.cfs_quota_us or v2 cpu.max) found" >&2
    exit 1
fi
trap 'rmdir "$group" 2>/dev/null || true; rm -rf "$work"' EXIT

# record OUT SIZE PRESET [BUDGET-AFTER]: one take inside the group; prints its output.
record() {
    local out=$1 size=$2 preset=$3 later=${4:-}
    if [ -n "$later" ]; then
        (sleep $((seconds / 3 + 3)); set_budget "$later") &
    fi
    sh -c "echo \$\$ >$group/cgroup.procs; exec $agent record --source synthetic --audio none --size $size --fps 30 \
        --preset $preset --duration $seconds --out $out --telemetry-seconds 1000" >"$out.txt" 2>&1 || true
    wait
}

# summary OUT: "recorded / dropped | preset (switches) | kB/s"
summary() {
    local out=$1 recorded dropped chosen switches file kbps
    recorded=$(sed -n 's/^recorded \([0-9]*\) frames.*/\1/p' "$out.txt")
    dropped=$(sed -n 's/^recorded .*, \([0-9]*\) dropped/\1/p' "$out.txt")
    chosen=$(sed -n 's/.*preset auto: [^ ]* \([a-z]*\),.*/\1/p' "$out.txt")
    switches=$(sed -n 's/^preset \([a-z]*\) from segment [0-9]* (\([0-9.]*\) s).*/\1 at \2 s/p' "$out.txt" | paste -sd, - | sed 's/,/, /g')
    file=$(sed -n 's/^file: //p' "$out.txt")
    kbps=$([ -n "$file" ] && echo $(( $(stat -c %s "$file") / 1000 / seconds )) || echo "?")
    echo "${recorded:-?} / ${dropped:-?} | ${chosen:-fixed}${switches:+ → $switches} | $kbps"
}

echo "encoder budget: ${seconds} s takes of the synthetic source at 30 fps, $config build, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| size | CPU budget (one core) | veryfast: frames / dropped | kB/s | auto: frames / dropped | auto's preset | kB/s |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for size in $sizes; do
    for budget in $budgets; do
        set_budget "$budget"
        record "$work/fixed-$size-$budget" "$size" veryfast
        set_budget "$budget"
        record "$work/auto-$size-$budget" "$size" auto
        IFS='|' read -r f_frames _ f_kbps <<<"$(summary "$work/fixed-$size-$budget")"
        IFS='|' read -r a_frames a_preset a_kbps <<<"$(summary "$work/auto-$size-$budget")"
        echo "| $size | $budget % | $f_frames | $f_kbps | $a_frames | $a_preset | $a_kbps |"
        if grep -q "cannot be recorded in real time" "$work/auto-$size-$budget.txt"; then
            echo "|  |  | auto refused: $(grep -o 'cannot be recorded.*' "$work/auto-$size-$budget.txt" | head -1 | cut -c1-220) |  |  |  |  |"
        fi
    done
    set_budget 100
    record "$work/fixed-$size-cut" "$size" veryfast 30
    set_budget 100
    record "$work/auto-$size-cut" "$size" auto 30
    IFS='|' read -r f_frames _ f_kbps <<<"$(summary "$work/fixed-$size-cut")"
    IFS='|' read -r a_frames a_preset a_kbps <<<"$(summary "$work/auto-$size-cut")"
    echo "| $size | 100 % → 30 % at $((seconds / 3 + 3)) s | $f_frames | $f_kbps | $a_frames | $a_preset | $a_kbps |"
done
if [ "${DUALCAM_BENCH_KEEP:-}" = 1 ]; then
    trap - EXIT
    echo "kept: $work"
fi
