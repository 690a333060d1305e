#!/usr/bin/env bash
# Boots the vivid guest once for VividCaptureTests: runs capture.sh in it with the built
# agent and coordinator. Results go to OUT, run.sh's stderr to OUT.log; exits with run.sh's
# status.
#
#   Tests/VividGuest/boot.sh OUT BIN_DIRECTORY
#
# It needs the machine to itself: tried while the test targets compiled (at nice 10), the
# guest's emulated CPU fell behind, an unplug came too late and a remote listing timed out.
set -uo pipefail
out=${1:?usage: boot.sh OUT BIN_DIRECTORY}
bin=${2:?usage: boot.sh OUT BIN_DIRECTORY}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
rm -rf "$out" "$out.log"
"$repo/tools/vivid-vm/run.sh" --out "$out" --timeout 400 --file "$bin/dualcam-agent" --file "$bin/dualcam-coordinator" \
    --file /usr/bin/v4l2-ctl -- "$here/capture.sh" "$bin/dualcam-agent" "$bin/dualcam-coordinator" \
    > /dev/null 2> "$out.log"
