@testable import DualCamMedia
import Synchronization
import Testing

/// A service's FFmpeg lines reach its logger with a priority, one call a line.
struct MediaLogTests {
    @Test func routedLinesArriveWithTheirLevelAndWithoutTheNewline() {
        let lines = Mutex<[(MediaLog.Level, String)]>([])
        MediaLog.route { level, line in lines.withLock { $0.append((level, line)) } }
        defer { MediaLog.unroute() }
        MediaLog.error("routed error \(#line)")
        let got = lines.withLock { $0 }
        // Other tests may log meanwhile: look for ours.
        let error = got.first { $0.1.hasPrefix("DualCamMedia: routed error") }
        #expect(error?.0 == .error)
        #expect(error?.1.hasSuffix("\n") == false)
    }
}
