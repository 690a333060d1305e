#!/usr/bin/env bash
# Regenerates the Swift message types from dualcam.proto.
# The generated file is checked in so that building DualCam needs neither protoc nor the
# plugin; run this after every change to dualcam.proto and commit both files together.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="$root/Sources/DualCamProtocol/Generated"

if ! command -v protoc >/dev/null 2>&1; then
    echo "error: protoc not found; install it (Debian/Ubuntu: apt-get install protobuf-compiler)" >&2
    exit 1
fi

# The plugin must match the SwiftProtobuf runtime the package resolves (see Package.swift),
# otherwise the generated code may not compile against it.
plugin="${PROTOC_GEN_SWIFT:-}"
if [ -z "$plugin" ]; then
    plugin="$(command -v protoc-gen-swift || true)"
fi
if [ -z "$plugin" ] || [ ! -x "$plugin" ]; then
    cat >&2 <<'MSG'
error: protoc-gen-swift not found. Set PROTOC_GEN_SWIFT=/path/to/protoc-gen-swift or put it on PATH.
Build it from the same swift-protobuf release the package uses, e.g.:
    git clone --branch 1.39.0 --depth 1 https://github.com/apple/swift-protobuf.git
    cd swift-protobuf && swift build -c release --product protoc-gen-swift
    export PROTOC_GEN_SWIFT="$PWD/.build/release/protoc-gen-swift"
MSG
    exit 1
fi

mkdir -p "$out"
protoc \
    --plugin=protoc-gen-swift="$plugin" \
    --proto_path="$here" \
    --swift_opt=Visibility=Public \
    --swift_opt=FileNaming=DropPath \
    --swift_out="$out" \
    "$here/dualcam.proto"
echo "wrote $out/dualcam.pb.swift"
