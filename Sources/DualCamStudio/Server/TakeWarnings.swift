import DualCamCoordinator
import Foundation
import NIOConcurrencyHelpers

/// A finished take's warnings as its manifest holds them. The rig's take status carries
/// the warnings known while it recorded; those found while finishing (frames a node
/// dropped, the sound and clock checks) go into the manifest. A take whose host dropped 42
/// of 555 frames ended "Done. The files are ready." with no word of it on the page.
final class TakeWarnings: Sendable {
    private struct Read {
        var key: String
        var warnings: [String]
    }

    /// The last manifest read, by path, size and time: states go out ten times a second.
    private let last = NIOLockedValueBox<Read?>(nil)

    /// The take's warnings with those of its manifest after them, each once.
    func warnings(of take: [String], manifest: String) -> [String] {
        var merged = take
        for warning in manifestWarnings(manifest) where !merged.contains(warning) { merged.append(warning) }
        return merged
    }

    private func manifestWarnings(_ path: String) -> [String] {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return [] }
        let key = "\(path) \(attributes[.size] ?? 0) \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        if let read = last.withLockedValue({ $0 }), read.key == key { return read.warnings }
        let warnings = (try? SessionLibrary(directories: []).resolve((path as NSString).deletingLastPathComponent))?.warnings ?? []
        last.withLockedValue { $0 = Read(key: key, warnings: warnings) }
        return warnings
    }
}
