#!/usr/bin/env bash
# The pictures of docs/LAYOUTS.md: records a short demo session per camera count (the
# synthetic test pattern, each camera its own picture), recomposes it once per layout and
# keeps one frame of each as docs/layouts/<cameras>-<layout>.jpg. Run it again whenever
# the layouts or the synthetic pattern change; it replaces every picture it makes.
#
#   tools/layout-frames.sh            (after swift build; DUALCAM_BIN=DIR for other binaries)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${DUALCAM_BIN:-$root/.build/debug}
out=$root/docs/layouts
size=640x360

coordinator=$bin/dualcam-coordinator
[ -x "$coordinator" ] || { echo "layout-frames: $coordinator is not built; run swift build first" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "layout-frames: ffmpeg is needed to cut the frames (apt install ffmpeg)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A default layout in the user's config would not change these pictures, but keep it out.
export XDG_CONFIG_HOME=$work/config
mkdir -p "$out"

# Layout specs per camera count, as --layout takes them.
two=(pip split-vertical split-vertical:anchor=center split-vertical:fit split-horizontal split-horizontal:fit
     dominance dominance:fit equal equal:fill grid grid:fill)
three=(pip dominance equal grid)
four=(pip split-horizontal dominance equal grid grid:fill)

record() {  # cameras -> prints the session folder
  local cameras=$1 dir=$work/cameras-$1
  if ! "$coordinator" demo --duration 2 --size "$size" --cameras "$cameras" --layout pip \
         --out "$dir" --state "$work/state" >"$dir.log" 2>&1; then
    echo "layout-frames: the $cameras-camera demo failed:" >&2
    tail -20 "$dir.log" >&2
    exit 1
  fi
  find "$dir" -mindepth 1 -maxdepth 1 -type d ! -name state | head -1
}

frame() {  # session cameras spec
  local session=$1 cameras=$2 spec=$3 name
  name=$cameras-$(printf '%s' "$spec" | tr ':,=' '---')
  if ! "$coordinator" recompose "$session" --layout "$spec" --preset ultrafast --crf 16 \
         >"$work/recompose.out" 2>"$work/recompose.log"; then
    echo "layout-frames: recompose --layout $spec failed:" >&2
    tail -5 "$work/recompose.log" >&2
    exit 1
  fi
  # Each render is a file of its own, named on the first line recompose prints.
  local render
  render=$(sed -n 's/^Recomposed into a new file: //p' "$work/recompose.out")
  [ -f "$render" ] || { echo "layout-frames: recompose named no new file: $(cat "$work/recompose.out")" >&2; exit 1; }
  ffmpeg -v error -y -ss 1 -i "$render" -frames:v 1 -q:v 2 "$out/$name.jpg"
  echo "  $out/$name.jpg  ($spec, $cameras cameras)"
}

for cameras in 2 3 4; do
  case $cameras in
    2) specs=("${two[@]}") ;;
    3) specs=("${three[@]}") ;;
    4) specs=("${four[@]}") ;;
  esac
  echo "$cameras cameras: recording a ${size} demo"
  session=$(record "$cameras")
  for spec in "${specs[@]}"; do frame "$session" "$cameras" "$spec"; done
done
