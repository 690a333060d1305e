import DualCamCoordinator
import Foundation
import NIOConcurrencyHelpers

/// What a finished take's manifest adds to the rig's take status. The status carries the
/// warnings known while the take recorded; those found while finishing (frames a node
/// dropped, the sound and clock checks) go into the manifest: a take whose host dropped 42
/// of 555 frames ended "Done. The files are ready." with no word of it on the page. And
/// its length: the status counts time only while the take runs, so a page opened after
/// it read "Done 00:00".
final class TakeManifest: Sendable {
    struct Facts: Sendable {
        var warnings: [String] = []
        var durationSeconds: Double?
    }

    private struct Read {
        var key: String
        var facts: Facts
    }

    /// The last manifest read, by path, size and time: states go out ten times a second.
    private let last = NIOLockedValueBox<Read?>(nil)

    /// The take's warnings with those of its manifest after them, each once.
    func warnings(of take: [String], manifest: String) -> [String] {
        var merged = take
        for warning in facts(manifest).warnings where !merged.contains(warning) { merged.append(warning) }
        return merged
    }

    /// Nothing when the manifest is not (yet) there or cannot be read.
    func facts(_ path: String) -> Facts {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return Facts() }
        let key = "\(path) \(attributes[.size] ?? 0) \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        if let read = last.withLockedValue({ $0 }), read.key == key { return read.facts }
        let session = try? SessionLibrary(directories: []).resolve((path as NSString).deletingLastPathComponent)
        let facts = Facts(warnings: session?.warnings ?? [], durationSeconds: session?.durationSeconds)
        last.withLockedValue { $0 = Read(key: key, facts: facts) }
        return facts
    }
}
