import Foundation
import Testing

/// Protocol 1.6's first draft grew Ready and Telemetry until swift-protobuf generated heap
/// storage for Envelope, and the suite crashed every run with heap corruption in unrelated
/// tests (PROTOCOL.md §19). Until that is understood, no message may use it: a message
/// whose fields cost 17 or more (nested messages count their fields) must be split.
struct GeneratedStorageTests {
    @Test func noGeneratedMessageUsesHeapStorage() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let generated = try String(contentsOf: root.appendingPathComponent("Sources/DualCamProtocol/Generated/dualcam.pb.swift"),
                                   encoding: .utf8)
        #expect(generated.contains("Dualcam_V1_Envelope"))
        #expect(!generated.contains("_StorageClass"), "a message now uses heap storage: split it (see PROTOCOL.md §19)")
    }
}
