#!/usr/bin/env bash
# Boots the vivid guest once for VividCaptureTests: runs capture.sh in it with the built
# agent and coordinator. Results go to OUT; OUT.log gets run.sh's stderr, and OUT.status
# its exit status, written last (the tests wait for it).
#
#   Tests/VividGuest/boot.sh OUT BIN_DIRECTORY
#
# The tests run it themselves; deploy/test.sh runs it in the background while the test
# targets compile (the guest's emulated CPU wants a core for about 70 s) and hands the
# tests OUT through DUALCAM_VIVID_OUT.
set -uo pipefail
out=${1:?usage: boot.sh OUT BIN_DIRECTORY}
bin=${2:?usage: boot.sh OUT BIN_DIRECTORY}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
rm -rf "$out" "$out.status" "$out.log"
"$repo/tools/vivid-vm/run.sh" --out "$out" --timeout 400 --file "$bin/dualcam-agent" --file "$bin/dualcam-coordinator" \
    --file /usr/bin/v4l2-ctl -- "$here/capture.sh" "$bin/dualcam-agent" "$bin/dualcam-coordinator" \
    > /dev/null 2> "$out.log"
status=$?
echo "$status" > "$out.status.partial" && mv "$out.status.partial" "$out.status"
exit "$status"
