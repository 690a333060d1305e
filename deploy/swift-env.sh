# Sourced by the deploy scripts: finds the Swift toolchain or says how to get one.
if ! command -v swift >/dev/null 2>&1; then
  for d in /opt/swift/usr/bin /usr/share/swift/usr/bin "$HOME/.local/share/swiftly/bin"; do
    if [ -x "$d/swift" ]; then PATH="$d:$PATH"; export PATH; break; fi
  done
fi
if ! command -v swift >/dev/null 2>&1; then
  echo "Swift 6 was not found. Install a Swift 6 toolchain for your platform (swift.org/install, or swiftly)" >&2
  echo "and put its usr/bin on PATH, then run this command again." >&2
  exit 1
fi
