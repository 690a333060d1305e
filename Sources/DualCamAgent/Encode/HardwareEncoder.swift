import Foundation
import NIOConcurrencyHelpers

/// Whether the Pi's hardware encoder is worth trying in place of libx264: not on a machine
/// with no video device node at all (where FFmpeg would log "Could not find a valid
/// device" on every take), and not again in this process once it failed to open.
enum HardwareEncoder {
    private static let failed = NIOLockedValueBox(false)

    static var mayOpen: Bool {
        guard !failed.withLockedValue({ $0 }) else { return false }
        let nodes = (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []
        return nodes.contains { $0.hasPrefix("video") }
    }

    static func failedToOpen() { failed.withLockedValue { $0 = true } }
}
