import DualCamTestSupport
import Foundation
import Testing
@testable import DualCamCoordinator

/// `rebuild-manifest` keeps the imports a damaged manifest still describes (only the
/// manifest knows where another recorder's file was placed), and names files in
/// `imports/` that no entry describes any more.
@Suite struct RebuiltImportsTests {
    @Test func importsTheDamagedManifestStillHoldsAreKeptAndStrayFilesNamed() throws {
        let folder = try TemporaryFolder("rebuilt-imports")
        let session = folder.path
        try FileManager.default.createDirectory(atPath: session + "/imports/originals", withIntermediateDirectories: true)
        for name in ["imports/lav.wav", "imports/originals/lav.wav", "imports/stray.wav"] {
            #expect(FileManager.default.createFile(atPath: session + "/" + name, contents: Data([1])))
        }
        // A manifest cut short after its imports: not a readable manifest, but its imports
        // array is whole; the second entry's file is gone, the third names a path outside.
        let lav = #"{"name": "lav", "file": "imports/lav.wav", "original": "imports/originals/lav.wav", "source": "/x/lav.wav", "kind": "sound", "format": "pcm_s16le 44100 Hz 2 ch", "durationSeconds": 60, "offsetSeconds": -2.5, "driftPpm": 83, "confidence": 1, "pieces": [], "beforeT0Seconds": 2.5, "importedAt": "2026-11-28T17:00:00Z", "alignSeconds": 0.5}"#
        let gone = lav.replacingOccurrences(of: "imports/lav.wav", with: "imports/gone.wav").replacingOccurrences(of: "\"lav\"", with: "\"gone\"")
        let outside = lav.replacingOccurrences(of: "imports/lav.wav", with: "../../etc/passwd").replacingOccurrences(of: "\"lav\"", with: "\"evil\"")
        let damaged = #"{"sessionID": "x", "imports": ["# + [lav, gone, outside].joined(separator: ", ") + "]}"
        try damaged.write(toFile: session + "/manifest.damaged.json", atomically: true, encoding: .utf8)

        let kept = ManifestRebuilder.keptImports(damaged: session + "/manifest.damaged.json", sessionDirectory: session)
        #expect(kept.imports?.map(\.name) == ["lav"])
        #expect(kept.warnings.contains { $0.contains("1 import(s) kept from the damaged manifest: lav") }, "\(kept.warnings)")
        #expect(kept.warnings.contains { $0.contains("imports/stray.wav") && !$0.contains("imports/lav.wav") }, "\(kept.warnings)")

        // Nothing readable: no import kept, every file named.
        try "{not json".write(toFile: session + "/manifest.damaged.json", atomically: true, encoding: .utf8)
        let none = ManifestRebuilder.keptImports(damaged: session + "/manifest.damaged.json", sessionDirectory: session)
        #expect(none.imports == nil)
        #expect(none.warnings.count == 1 && none.warnings[0].contains("imports/lav.wav"), "\(none.warnings)")
    }
}
