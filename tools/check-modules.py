#!/usr/bin/env python3
"""Holds the modules to the rules of docs/ARCHITECTURE.md; deploy/test.sh runs it first.

  tools/check-modules.py     exit 1, naming file and import, when a rule is broken

1. Sources/DualCamCore imports nothing but the standard library: no Foundation, no Glibc,
   no other module. The core is pure (no I/O, no C), and an `import Foundation` there
   once went unnoticed for months while comments claimed otherwise.
2. Every target imports only what Package.swift declares for it directly, and declares
   nothing it never imports. SwiftPM's own check (`swift build
   --explicit-target-dependency-import-check error`, which deploy/test.sh also builds
   with) accepts an import of anything reachable through the declared dependencies; this
   one wants each direct import written down, so that the manifest is the module map.

It reads the manifest through `swift package dump-package` (no build) and each target's
import lines as text; conditional imports (#if canImport) count like any other.
"""
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Modules of the toolchain itself, which no manifest declares.
TOOLCHAIN = {"Swift", "_Concurrency", "_StringProcessing", "Synchronization", "Foundation",
             "FoundationEssentials", "FoundationNetworking", "Glibc", "Musl", "Dispatch",
             "Darwin", "Testing", "XCTest"}
# What the standard library is, for the core: no Synchronization either (the core keeps
# no shared state to lock).
STANDARD_LIBRARY = {"Swift", "_Concurrency", "_StringProcessing"}
PURE = "DualCamCore"
IMPORT = re.compile(
    r"^[ \t]*(?:@[\w]+(?:\([^)]*\))?[ \t]+)*(?:(?:public|package|internal|fileprivate|private)[ \t]+)?"
    r"import[ \t]+(?:(?:struct|class|enum|protocol|func|var|let|typealias)[ \t]+)?([A-Za-z_]\w*)",
    re.M)


def imports(folder):
    """{module: first file that imports it} for the Swift files under folder."""
    found = {}
    for path in sorted(glob.glob(os.path.join(folder, "**", "*.swift"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            for match in IMPORT.finditer(f.read()):
                found.setdefault(match.group(1), os.path.relpath(path, ROOT))
    return found


def main():
    manifest = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True,
                                         capture_output=True, text=True).stdout)
    problems = []
    for target in manifest["targets"]:
        if target["type"] in ("system", "binary", "plugin"):
            continue
        folder = os.path.join(ROOT, target.get("path") or
                              ("Tests/" if target["type"] == "test" else "Sources/") + target["name"])
        used = imports(folder)
        declared = {names[0] for dependency in target["dependencies"] for names in dependency.values()}
        if target["name"] == PURE:
            for module, path in sorted(used.items()):
                if module not in STANDARD_LIBRARY:
                    problems.append(f"{path}: imports {module}; {PURE} imports nothing but the standard library "
                                    "(write what it needs in the core, or move the code out of it)")
        itself = target["name"].replace("-", "_")
        for module, path in sorted(used.items()):
            if module not in declared and module not in TOOLCHAIN and module != itself:
                problems.append(f"{path}: imports {module}, which Package.swift does not declare for "
                                f"{target['name']}")
        for module in sorted(declared - set(used)):
            problems.append(f"Package.swift: {target['name']} declares {module} and never imports it")
    for line in problems:
        print("check-modules: " + line, file=sys.stderr)
    if problems:
        return 1
    print(f"check-modules: {len(manifest['targets'])} targets import what they declare; {PURE} only the standard library")
    return 0


if __name__ == "__main__":
    sys.exit(main())
