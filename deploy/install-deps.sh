#!/usr/bin/env bash
# Installs every Debian package DualCam needs to build, test and run (and, for the browser
# test, Playwright for Python from PyPI).
# Idempotent: packages already present are skipped, so a second run costs a few dpkg queries.
# Works as root or through sudo on Debian 12 and Raspberry Pi OS bookworm.
# Waits for the dpkg lock instead of failing when another install is running.
set -euo pipefail

# Build: FFmpeg dev libraries, V4L2, ALSA, libebur128 (the programme loudness), Avahi client,
#        libsodium (pairing's CPace), pkg-config.
# Run: avahi-daemon + dbus for discovery, libx264 comes with libavcodec, libsodium23 and
#      libebur128-1 with their -dev packages (the packages depend on them through dpkg-shlibdeps).
# Test: the ffmpeg CLI (ffprobe and the benchmark peer), iproute2 for network namespaces;
#       qemu + a stock kernel for vivid (below).
# Demo and tests: espeak-ng and python3 speak the scripted conversation of
#       `demo.sh --conversation` (tools/conversation/make-conversation.py).
PACKAGES=(
  pkg-config
  libavcodec-dev libavformat-dev libavutil-dev libswscale-dev libswresample-dev libavdevice-dev
  libv4l-dev v4l-utils
  libasound2-dev libebur128-dev
  libavahi-client-dev avahi-daemon avahi-utils dbus
  libsodium-dev libsodium23
  ffmpeg
  iproute2 procps
  espeak-ng python3
)
# With --test (deploy/test.sh), what only the tests need: the browser test
# (Tests/Browser/studio_test.py) drives the studio page in headless Chromium through
# Playwright (installed from PyPI below): the system's chromium, so that Playwright never
# downloads a browser of its own; a font, or the page's text has no size; numpy (also for
# tools/dctc_read.py) reads the DCTC cells and PIL decodes the screenshots they are read
# from; websockets is the viewers of tools/bench/studio-viewers.py; OpenTimelineIO reads the
# exported timelines back; gcc builds the jitter switch of the multi-host tests
# (tools/netns/jitterhub.c). The demo needs none of it.
FOR_TESTS=0
FOR_PACKAGES=0
for flag in "$@"; do
  case $flag in
    --test) FOR_TESTS=1 ;;
    --package) FOR_PACKAGES=1 ;;
    *) echo "install-deps: unknown option $flag (--test, --package)" >&2; exit 2 ;;
  esac
done
if [ $FOR_TESTS -eq 1 ]; then
  PACKAGES+=(gcc libc6-dev chromium fonts-dejavu-core python3-numpy python3-pil python3-pip python3-websockets)
fi
# With --package (deploy/package.sh, deploy/package-test.sh): dpkg-shlibdeps (dpkg-dev),
# strip (binutils), lintian; for the fresh-system test a Debian 12 root made by
# debootstrap and booted by systemd-nspawn (systemd-container).
if [ $FOR_PACKAGES -eq 1 ]; then
  PACKAGES+=(dpkg-dev binutils lintian debootstrap systemd-container zstd)
fi
# The V4L2 tests run the capture code in a QEMU guest with the vivid driver
# (tools/vivid-vm/run.sh). xz-utils unpacks the kernel once so the guest boots ~5 s faster.
# That guest is x86-64 only: the programs it runs are the host's own binaries.
if [ "$(dpkg --print-architecture)" = amd64 ]; then
  PACKAGES+=(qemu-system-x86 linux-image-amd64 busybox-static cpio kmod xz-utils)
fi

if [ "$(id -u)" -eq 0 ]; then SUDO=(); else
  command -v sudo >/dev/null || { echo "install-deps: not root and no sudo; run this script as root" >&2; exit 1; }
  SUDO=(sudo)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# apt-get's own lock wait (DPkg::Lock::Timeout) covers dpkg's frontend lock; the loop
# below also covers the lists lock that 'apt-get update' takes.
wait_for_lock() {
  local waited=0
  command -v fuser >/dev/null 2>&1 || return 0   # apt-get's own lock timeout still applies
  while "${SUDO[@]}" fuser /var/lib/dpkg/lock-frontend /var/lib/apt/lists/lock >/dev/null 2>&1; do
    [ $waited -eq 0 ] && echo "install-deps: waiting for another package install to finish" >&2
    sleep 2; waited=$((waited + 2))
    if [ $waited -ge 1200 ]; then echo "install-deps: dpkg is still locked after 20 min; giving up" >&2; exit 1; fi
  done
}
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  wait_for_lock
  "${SUDO[@]}" apt-get -o DPkg::Lock::Timeout=1200 update -qq
  wait_for_lock
  "${SUDO[@]}" apt-get -o DPkg::Lock::Timeout=1200 install -y -qq --no-install-recommends "${missing[@]}"
fi

# Playwright for Python is not packaged in Debian 12: pip installs it once, pinned (only the
# Python package: it drives /usr/bin/chromium; 'playwright install' is never run). The
# `python3` the tests run may not be Debian's (a pyenv one, say), which does not see the
# python3-* packages above: whatever it cannot import comes from PyPI the same way.
# --break-system-packages: Debian's pip refuses to install into its Python otherwise (PEP 668).
if [ $FOR_TESTS -eq 1 ]; then
  wanted=()
  python3 -c 'import numpy' 2>/dev/null || wanted+=(numpy)
  python3 -c 'import PIL' 2>/dev/null || wanted+=(pillow)
  python3 -c 'import websockets' 2>/dev/null || wanted+=(websockets)
  python3 -c 'import playwright' 2>/dev/null || wanted+=(playwright==1.65.2)
  # OpenTimelineIO and its adapters read the exported timelines back (Tests/Editing).
  python3 -c 'import opentimelineio' 2>/dev/null || wanted+=(opentimelineio==0.18.1)
  python3 -c 'import otio_fcpx_xml_adapter' 2>/dev/null || wanted+=(otio-fcpx-xml-adapter==1.0.0)
  python3 -c 'import otio_fcp_adapter' 2>/dev/null || wanted+=(otio-fcp-adapter==1.0.0)
  python3 -c 'import otio_cmx3600_adapter' 2>/dev/null || wanted+=(otio-cmx3600-adapter==1.0.0)
  if [ ${#wanted[@]} -gt 0 ]; then
    echo "install-deps: installing ${wanted[*]} for $(command -v python3) (PyPI)"
    "${SUDO[@]}" python3 -m pip install -q --root-user-action=ignore --break-system-packages "${wanted[@]}"
  fi
fi
echo "install-deps: done"
