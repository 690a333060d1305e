#!/usr/bin/env bash
# Builds the Debian packages for this machine's architecture, from a clone, in one command:
#
#   deploy/package.sh [--out DIR] [--no-lintian]
#
# → DIR/dualcam-agent_<version>_<arch>.deb and DIR/dualcam-coordinator_<version>_<arch>.deb
#   (DIR defaults to out/packages). Release builds with the Swift runtime and Foundation
#   linked statically (--static-swift-stdlib), so the target machine needs no Swift
#   toolchain: only Debian's own shared libraries (FFmpeg, ALSA, Avahi, libv4l, libsodium), whose
#   package dependencies dpkg-shlibdeps computes from the binaries. The version is the
#   programs' own (`--version`, from Sources/DualCamProtocol/Release.swift); the
#   architecture is dpkg's, checked against the Swift build's target: an arm64 Debian 12
#   machine with a Swift toolchain builds the arm64 packages with the same command.
#   lintian checks them when installed (errors fail the script; warnings are printed).
#
# The build goes to the scratch folder .build-release (DUALCAM_PACKAGE_SCRATCH overrides),
# separate from the debug build's, so that a second run only relinks what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

OUT=out/packages
LINTIAN=1
while [ $# -gt 0 ]; do
  case $1 in
    --out) OUT=${2:?--out needs a folder}; shift 2 ;;
    --no-lintian) LINTIAN=0; shift ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "package: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SCRATCH=${DUALCAM_PACKAGE_SCRATCH:-$ROOT/.build-release}
MAINTAINER=${DUALCAM_MAINTAINER:-"DualCam maintainers <maintainers@dualcam.invalid>"}

bash deploy/install-deps.sh --package
. deploy/swift-env.sh

# Reproducible: file dates, the changelog's and the manual's date are the last commit's.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH

ARCH=$(dpkg --print-architecture)
CPU=$(dpkg-architecture -a "$ARCH" -qDEB_HOST_GNU_CPU 2>/dev/null)

# Hardened like Debian's own binaries: full RELRO (lintian checks for it).
BUILD=(swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH"
       -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now)
echo "== building (release, Swift runtime linked statically; the first build takes a long while)"
"${BUILD[@]}" --product dualcam-agent
"${BUILD[@]}" --product dualcam-coordinator
BIN=$("${BUILD[@]}" --show-bin-path)
TRIPLE=$(basename "$(dirname "$BIN")")
case $TRIPLE in
  "$CPU"-*|"$CPU"v*-*) ;;
  *) echo "package: Swift built for $TRIPLE, but dpkg's architecture here is $ARCH ($CPU): build on a $ARCH machine" >&2; exit 1 ;;
esac

# The programs say their version; both must say the same one.
VERSION=$("$BIN/dualcam-agent" --version | awk '{print $2}')
COORDINATOR_VERSION=$("$BIN/dualcam-coordinator" --version | awk '{print $2}')
[ -n "$VERSION" ] && [ "$VERSION" = "$COORDINATOR_VERSION" ] || {
  echo "package: the agent says version '$VERSION', the coordinator '$COORDINATOR_VERSION'" >&2; exit 1; }
for program in dualcam-agent dualcam-coordinator; do
  if ldd "$BIN/$program" | grep -E 'libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime'; then
    echo "package: $program links the Swift runtime dynamically (above); it must be built with --static-swift-stdlib" >&2
    exit 1
  fi
done

# The manual pages come from the programs' own help, through swift-argument-parser's
# generate-manual tool (built from the checkout SwiftPM already holds: no network).
GENERATE_MANUAL=$SCRATCH/tools/debug/generate-manual
if [ ! -x "$GENERATE_MANUAL" ] || [ "$SCRATCH/checkouts/swift-argument-parser/Package.swift" -nt "$GENERATE_MANUAL" ]; then
  echo "== building generate-manual (swift-argument-parser)"
  swift build --package-path "$SCRATCH/checkouts/swift-argument-parser" --scratch-path "$SCRATCH/tools" --product generate-manual
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dualcam-package.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
DATE_RFC2822=$(date -u -R -d "@$SOURCE_DATE_EPOCH")
DATE_DAY=$(date -u +%F -d "@$SOURCE_DATE_EPOCH")

# dpkg-shlibdeps wants a debian/control beside it; the binary package's name is enough.
shlib_depends() {
  local dir=$WORK/shlibs-$1
  mkdir -p "$dir/debian"
  printf 'Source: dualcam\n\nPackage: %s\nArchitecture: any\n' "$1" >"$dir/debian/control"
  (cd "$dir" && dpkg-shlibdeps -O -e"$2") | sed -n 's/^shlibs:Depends=//p'
}

# stage NAME: the program, its manual, its shell completions and its documentation.
stage() {
  local name=$1 root=$WORK/$1
  install -d "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" "$root/usr/share/doc/$name" \
             "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
             "$root/usr/share/fish/vendor_completions.d"
  install -m 0755 "$BIN/$name" "$root/usr/bin/$name"
  strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/$name"
  mkdir -p "$WORK/man-$name"
  "$GENERATE_MANUAL" "$BIN/$name" --date "$DATE_DAY" --section 1 --output-directory "$WORK/man-$name" >/dev/null
  local page
  for page in "$WORK/man-$name"/*.1; do
    gzip -9n <"$page" >"$root/usr/share/man/man1/$(basename "$page").gz"
  done
  # (no #! line: bash-completion sources the file)
  "$BIN/$name" --generate-completion-script bash | sed "1{/^#!/d}" >"$root/usr/share/bash-completion/completions/$name"
  "$BIN/$name" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_$name"
  "$BIN/$name" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/$name.fish"
  install -m 0644 deploy/debian/copyright "$root/usr/share/doc/$name/copyright"
  install -m 0644 README.md "$root/usr/share/doc/$name/README.md"
  printf '%s (%s) bookworm; urgency=medium\n\n  * Release %s: %s\n\n -- %s  %s\n' \
    dualcam "$VERSION" "$VERSION" "$("$BIN/$name" --version)" "$MAINTAINER" "$DATE_RFC2822" |
    gzip -9n >"$root/usr/share/doc/$name/changelog.gz"
}

# control NAME DEPENDS-EXTRA RECOMMENDS SUGGESTS SUMMARY DESCRIPTION
control() {
  local name=$1 root=$WORK/$1 depends
  depends=$(shlib_depends "$name" "$root/usr/bin/$name")
  [ -n "$depends" ] || { echo "package: dpkg-shlibdeps found no dependencies for $name" >&2; exit 1; }
  # Pairing's CPace runs on libsodium (PROTOCOL.md §14): a package without it would
  # install on a fresh machine and then fail to pair.
  case "$depends" in
    *libsodium23*) ;;
    *) echo "package: $name does not depend on libsodium23 (Depends: $depends)" >&2; exit 1 ;;
  esac
  [ -n "$2" ] && depends="$depends, $2"
  {
    echo "Package: $name"
    echo "Source: dualcam"
    echo "Version: $VERSION"
    echo "Architecture: $ARCH"
    echo "Maintainer: $MAINTAINER"
    echo "Installed-Size: $(du -sk --apparent-size "$root" | cut -f1)"
    echo "Depends: $depends"
    [ -n "$3" ] && echo "Recommends: $3"
    [ -n "$4" ] && echo "Suggests: $4"
    echo "Section: video"
    echo "Priority: optional"
    echo "Description: $5"
    echo "$6" | fold -s -w 78 | sed 's/ *$//; s/^/ /; s/^ $/ ./'
  } >"$root/DEBIAN/control"
  (cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' md5sum) >"$root/DEBIAN/md5sums"
}

build_deb() {
  local name=$1 root=$WORK/$1 deb=$OUT/${1}_${VERSION}_${ARCH}.deb
  find "$root" -type d -exec chmod 0755 {} +
  find "$root" -type f ! -path "$root/DEBIAN/*" ! -path "$root/usr/bin/*" -exec chmod 0644 {} +
  dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
  echo "$deb"
}

echo "== packaging $VERSION for $ARCH"
ABOUT="DualCam records an interview with two or more Linux cameras in sync to well under a \
frame: a capture agent on each camera node, a coordinator on a laptop, and a studio page \
in the browser."

stage dualcam-agent
A=$WORK/dualcam-agent
install -D -m 0644 deploy/dualcam-agent.conf "$A/etc/dualcam/agent.conf"
install -D -m 0644 deploy/dualcam-agent.service "$A/lib/systemd/system/dualcam-agent.service"
install -D -m 0644 deploy/dualcam-agent-picamera.service "$A/lib/systemd/system/dualcam-agent-picamera.service"
echo /etc/dualcam/agent.conf >"$A/DEBIAN/conffiles"
install -m 0755 deploy/debian/dualcam-agent.postinst "$A/DEBIAN/postinst"
install -m 0755 deploy/debian/dualcam-agent.prerm "$A/DEBIAN/prerm"
install -m 0755 deploy/debian/dualcam-agent.postrm "$A/DEBIAN/postrm"
# ca-certificates: SwiftNIO SSL loads the system's trust store when it makes a TLS
# context, even though both programs pin their peers; without it neither can listen or
# connect (a minbase Debian lacks it; the fresh-system test found that).
control dualcam-agent "adduser, ca-certificates" "avahi-daemon" "v4l-utils" \
  "DualCam capture agent: one camera of a multi-camera recorder" \
  "$ABOUT
.
This package is for each camera node (a Raspberry Pi with a USB webcam or a camera \
module, or any Linux machine): the dualcam-agent service captures the camera and the \
microphone, stamps every frame on the coordinator's clock, encodes H.264, spools the \
segments to disk and uploads them to the paired coordinator over mutually \
authenticated TLS. It runs as the dualcam user; its settings are in \
/etc/dualcam/agent.conf, its identity, pairings and spool in /var/lib/dualcam. \
The Raspberry Pi camera module's unit, dualcam-agent-picamera, is installed but not \
enabled."
AGENT_DEB=$(build_deb dualcam-agent)

stage dualcam-coordinator
control dualcam-coordinator "ca-certificates" "avahi-daemon" "dualcam-agent" \
  "DualCam coordinator: records every camera of a DualCam rig in sync" \
  "$ABOUT
.
This package is for the laptop that runs the rig: dualcam-coordinator pairs with the \
agents, finds them over mDNS, gives them a shared clock and a common start, collects \
their segments while they record and delivers one file per camera plus a combined \
picture, ready seconds after the stop. It serves the studio page (live previews, \
record, layouts) and keeps a library of sessions. Shell completions for bash, zsh and \
fish and a manual page are included."
COORDINATOR_DEB=$(build_deb dualcam-coordinator)

if [ $LINTIAN -eq 1 ]; then
  if command -v lintian >/dev/null; then
    echo "== lintian"
    # Exits non-zero on errors; warnings and notes are printed for the record.
    lintian --info --no-tag-display-limit --fail-on error "$AGENT_DEB" "$COORDINATOR_DEB" || {
      echo "package: lintian found errors (above)" >&2; exit 1; }
  else
    echo "(lintian is not installed: not checked)"
  fi
fi

echo "== packages"
for deb in "$AGENT_DEB" "$COORDINATOR_DEB"; do
  printf '%s  %s kB (installed %s kB)\n  Depends: %s\n' "$deb" "$(( $(stat -c %s "$deb") / 1024 ))" \
    "$(dpkg-deb -f "$deb" Installed-Size)" "$(dpkg-deb -f "$deb" Depends)"
done
