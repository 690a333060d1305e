#!/usr/bin/env bash
# Installs what is missing, builds DualCam with its tests, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh --test
# Each phase's start, with the seconds since the script began: the suite's time budget is
# read from these lines (docs/DEVELOPMENT.md).
phase() { echo "== $1 (at ${SECONDS} s)"; }
# The end-to-end tests of the suites (or Suite/test entries) in an alternation.
e2e_only() { echo "EndToEndTests\.(EndToEnd/)?($1)[/(]"; }
# What every end-to-end run and lane prints, to count their tests (below).
e2e_runs=$(mktemp)
# Background jobs (the lanes beside a phase, the small jobs beside live out) end with the script.
trap 'jobs -p | xargs -r kill 2>/dev/null; rm -f "$e2e_runs"; echo "== done (at ${SECONDS} s)"' EXIT
. deploy/swift-env.sh
# The studio page is embedded in the binary; a page edited without regenerating it would
# test one page and ship another.
bash tools/embed-web.sh --check
# Module rules (docs/ARCHITECTURE.md), checked before the build because they cost a second:
# each target imports what Package.swift declares for it, and the core only the standard
# library. The build then has SwiftPM check imports against the declared dependencies too.
phase "module rules"
python3 tools/check-modules.py
phase "building (debug, with tests; imports checked against Package.swift)"
swift build --build-tests --explicit-target-dependency-import-check error
phase "dbus and avahi-daemon (the discovery tests publish and browse through them)"
bash deploy/ensure-avahi.sh
# Pure tests (the core's simulated hours, the protocol's fuzzing) keep both threads of
# Swift's cooperative pool busy for seconds at a time; tests that hold real connections
# with idle timeouts (TLS, Avahi, agents in this process) run after them, not beside them,
# so that a starved pool cannot look like a silent peer (CI once dropped one so, at 10 s).
# The director's conversations (espeak-ng voices rendered, levelled and cut, 40 s of CPU
# in a debug build) are CPU-bound too: beside the component tests they held both threads
# for half a minute, and a TLS test's peer went idle past its 10 s guard. So are the take
# and the rig on simulated time (libx264 segments for up to 8 agents, the files finished
# at once): beside the component tests, two of those missed their 10 s waits in four runs.
# Two runs: the protocol's fuzzing judges the peak RSS of its process (a decoder trusting a
# length prefix would allocate up to 4 GiB; alone the loop adds about 3 MiB), and beside
# the take and rig tests (libx264 for up to 8 agents, their pictures) it once read 189 MB.
pure_small='DualCamCoreTests|DualCamProtocolTests'
pure_media='DirectorConversationTests|ProgrammeSoundTests|TakeLifeTests|RigLifeTests'
pure="$pure_small|$pure_media"
phase "unit tests (pure: core, protocol; the director's conversations; the rig on simulated time)"
swift test --skip-build --filter "$pure_small"
swift test --skip-build --filter "$pure_media"
# At most two tests at a time: swift-testing starts every test at once, and a TLS
# peer's continuation then queued behind every waiting test's start on the two threads
# (12 s: the listener's 10 s idle guard closed it; the Pi sync sender sent nothing). At
# three, two tests that hold a thread each (an encode run inside a test's task) still left
# an agent in this process none: its answer to a Hello came after 5 to 10 s, in 2 runs of 5.
phase "component tests (TLS, Avahi, FFmpeg, ALSA, agents in-process)"
swift test --skip-build --experimental-maximum-parallelization-width 2 --skip "$pure|EndToEndTests|StudioViewerFloodTests|StudioStrangerTests"
# The studio under attack floods it with connections and messages on purpose: alone, so
# that the flood neither starves timing-sensitive component tests beside it nor is
# judged by deadlines a shared CPU stretches. One after the other, too: the two suites'
# studios share the process's event loops, and 300 strangers held open by one once kept
# the other's WebSocket upgrade unanswered for 5 s on a loaded CI machine.
phase "studio attack tests (floods of connections and messages)"
swift test --skip-build --no-parallel --filter 'StudioViewerFloodTests|StudioStrangerTests'
# End-to-end tests run real-time agents: they get the machine to themselves, so that
# frame drops they see come from the product, not from unit tests sharing the CPU. Those
# whose point is the CPU (an encoder budget, 640x360 or more on every camera, the phase
# lock's figures, vivid in its QEMU guest: an emulated CPU, a real-time driver) run one at
# a time at the normal priority; run beside another test at the same priority, a budget
# test dropped frames, as it should (it measures the CPU), and so did vivid. An entry is a
# suite, or Suite/test.
heavy='PresetBudgetTests|DemoSessionTests|AudioSyncTests|DirectorTakeTests|LiveOutTests|SplitScreenSyncTests|ManyCamerasTests|FreeRunPhaseTests|VividCaptureTests|VividControlsTests'
# Those tests leave the CPU half idle on average (vmstat: 50-60 %, one at a time), so a
# second lane runs beside them at nice 10, where it takes what they leave (43 % was still
# idle with it): tests that mostly wait (the two rejoins and the two floods of
# connections, 70-75 % idle alone, once run at the same priority beside another test
# where a rejoined agent's frame came 1.5 ms off the period), the import, the served
# rig's ten takes, the agent's own recordings (320x240). The group went from 340 s to 250.
beside='SessionRecoveryTests/(aKilledAgentRejoinsTheRecording|anAgentKilledInItsFirstSegmentRejoinsToo|aPairedCoordinatorGetsThroughAHalfOpenTLSFlood|aFloodOfIdleConnectionsDoesNotDisturbARecording)|ImportTests|ServeRigTests|AgentRecordTests'
# Live out's faults (below, a demo rig streaming) leave the CPU 60 % idle too: three more
# light suites run beside them at nice 10 (about 75 s of tests one at a time).
beside_live='OneRigPerNodeTests|SessionLibraryTests|SessionDeleteTests'
# And beside the CPU-bound group, a third lane of light tests that spend their time
# starting programs and reading what they say (the command line's words, nodes missing).
beside_too='CommandLineTests|BrokenNodeTests'

# The rest (320x240 and smaller, mostly waiting on real timers: cuts, graces, restarts) run
# three at a time. The light tests mostly block a thread waiting on their child
# processes, and Swift's cooperative pool has one thread per core: a width of 3 ran no
# faster than 2 (331 s). So a second test process runs a third lane beside them
# (the suites below, about a third of the group's time one at a time), the CPU still a
# quarter idle. --ignore-lock: every process only reads the finished build.
# Every end-to-end test runs in one group or another: a suite the other groups' filters
# missed was skipped by the first and ran nowhere (it happened twice), so the runs' counts
# must add up to the list's.
lane_b='MultiHostTests|InterruptTests'
# Runs the tests of a filter one at a time in a process of its own beside the phase
# (niced by NICE, if set), its output in a file; `joined` waits for every such lane, adds
# their output to the count and fails the suite if one failed. The lanes run the test
# binary itself, as `swift test` does: SwiftPM reads its build database as it starts, and
# with three started at once in CI (even 2 s apart, one at nice 10) one found it locked
# ("unable to attach DB") and ran no test.
tests_binary="$(swift build --show-bin-path)/DualCamPackageTests.xctest"
side_jobs=(); side_logs=(); side_names=()
side_lane() {
    local log
    log=$(mktemp)
    # exec: the job is the test process itself, which the exit trap can stop.
    (exec ${NICE:+nice -n "$NICE"} "$tests_binary" --testing-library swift-testing --filter "$(e2e_only "$1")" --no-parallel) > "$log" 2>&1 &
    side_jobs+=("$!"); side_logs+=("$log"); side_names+=("$1")
}
joined() {
    local i status failed=0
    for i in "${!side_jobs[@]}"; do
        status=0
        wait "${side_jobs[$i]}" || status=$?
        echo "-- the lane beside (${side_names[$i]}):"
        tee -a "$e2e_runs" < "${side_logs[$i]}"
        rm -f "${side_logs[$i]}"
        if [ "$status" -ne 0 ]; then echo "end-to-end: the lane beside failed ($status)" >&2; failed=$status; fi
    done
    side_jobs=(); side_logs=(); side_names=()
    if [ "$failed" -ne 0 ]; then exit "$failed"; fi
}
phase "end-to-end tests, three at a time (320x240 and smaller: two lanes in one process, one in another)"
side_lane "$lane_b"
swift test --skip-build --ignore-lock --filter EndToEndTests --skip "$(e2e_only "$heavy|$beside|$beside_too|$beside_live|$lane_b")" --experimental-maximum-parallelization-width 2 2>&1 | tee -a "$e2e_runs"
joined
phase "end-to-end tests, one at a time (CPU-bound), and beside them at nice 10 those that mostly wait"
NICE=10 side_lane "$beside"
NICE=10 side_lane "$beside_too"
swift test --skip-build --ignore-lock --filter "$(e2e_only "$heavy")" --no-parallel 2>&1 | tee -a "$e2e_runs"
joined
# The studio page in headless Chromium against a demo rig of its own (real-time agents
# too, so it also runs alone, after the end-to-end tests).
phase "browser test (studio, headless Chromium)"
python3 Tests/Browser/studio_test.py
python3 Tests/Browser/director_test.py
python3 Tests/Browser/live_test.py
# Live out's faults, the short version of the benchmark (docs/LIVE.md): a receiver late,
# killed and back, and one at a third of the bitrate; the take keeps every frame.
phase "live out faults (tools/bench/live_out.py), and beside them at nice 10 three light end-to-end suites and the conversation generator's test"
NICE=10 side_lane "$beside_live"
# Two small jobs beside them too: tools/conversation's generator test (a few seconds of
# Python) and the list of end-to-end tests the count below checks against (5 s).
conversation_log=$(mktemp); listing=$(mktemp)
nice -n 10 python3 tools/conversation/test_make_conversation.py > "$conversation_log" 2>&1 &
conversation_job=$!
(exec nice -n 10 "$tests_binary" --testing-library swift-testing --list-tests > "$listing" 2>/dev/null) &
listing_job=$!
python3 tools/bench/live_out.py --seconds 12 --only restart,throttle --check < /dev/null
# SRT notices a dead listener only after its 5 s peer idle timeout: a longer take.
python3 tools/bench/live_out.py --seconds 20 --only restart_srt --check < /dev/null
joined
conversation_status=0
wait "$conversation_job" || conversation_status=$?
echo "-- tools/conversation's generator test:"
cat "$conversation_log"
if [ "$conversation_status" -ne 0 ]; then echo "tools/conversation: its test failed ($conversation_status)" >&2; exit 1; fi
wait "$listing_job"
e2e_listed=$(grep -c '^EndToEndTests\.' "$listing")
rm -f "$conversation_log" "$listing"
e2e_ran=$(grep -o 'Test run with [0-9]* test' "$e2e_runs" | awk '{ n += $4 } END { print n + 0 }')
if [ "$e2e_ran" -ne "$e2e_listed" ]; then
    echo "end-to-end: $e2e_ran tests ran of the $e2e_listed listed; one fell between the groups (check \$heavy, \$beside, \$beside_too, \$beside_live and \$lane_b above)" >&2
    exit 1
fi
echo "end-to-end: all $e2e_listed tests ran"
