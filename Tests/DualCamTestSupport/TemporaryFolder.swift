import Foundation

/// A fresh folder under the system's temporary folder, removed by `remove()` (call it in
/// the test's `defer`).
public struct TemporaryFolder: Sendable {
    public let path: String

    public init(_ purpose: String = "test") throws {
        path = NSTemporaryDirectory() + "dualcam-\(purpose)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> String { path + "/" + name }

    /// Kept when DUALCAM_KEEP_TEST_FILES is set, to inspect outputs with ffprobe.
    public func remove() {
        if ProcessInfo.processInfo.environment["DUALCAM_KEEP_TEST_FILES"] != nil {
            print("kept test files in \(path)")
            return
        }
        try? FileManager.default.removeItem(atPath: path)
    }
}
