# Sourced by the benchmarks that drive a coordinator against two release agents with
# synthetic sources on loopback. Builds both programs (release), makes a scratch folder
# $work (removed on exit, with the agents killed), starts a host and a guest agent that
# trust a fresh coordinator identity in $work/coordinator, and sets:
#   bin      the release binaries' folder
#   work     the scratch folder (agent logs in $work/host.log and $work/guest.log)
#   pids     the agents' process IDs (more may be appended; all are killed on exit)
#   targets  --agent options for the coordinator
# Usage: start_two_agents NAME-PREFIX [extra agent options...]
. deploy/swift-env.sh
swift build -c release --product dualcam-coordinator >/dev/null
swift build -c release --product dualcam-agent >/dev/null
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d /tmp/dualcam-bench.XXXXXX)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT

start_two_agents() {
    local prefix=$1
    shift
    local coordinator_id role line
    coordinator_id=$("$bin/dualcam-coordinator" id --state "$work/coordinator")
    targets=()
    for role in host guest; do
        "$bin/dualcam-agent" run --source synthetic --role "$role" --name "$prefix-$role" --listen 127.0.0.1 --port 0 \
            --no-mdns --state "$work/$role" --trust "$coordinator_id" "$@" >"$work/$role.out" 2>"$work/$role.log" &
        pids+=($!)
    done
    for role in host guest; do
        for _ in $(seq 100); do grep -q LISTENING "$work/$role.out" 2>/dev/null && break; sleep 0.1; done
        line=$(grep LISTENING "$work/$role.out")
        targets+=(--agent "127.0.0.1:$(echo "$line" | sed 's/.*port=\([0-9]*\).*/\1/'),$(echo "$line" | sed 's/.*id=\([^ ]*\).*/\1/')")
    done
}
