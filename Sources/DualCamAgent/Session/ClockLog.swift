import DualCamCore
import Foundation
import NIOConcurrencyHelpers

/// Every clock exchange as a line, `path t1 t2 t3 t4` (ns; path `lane` or `tls`; the
/// format is `ClockReplay.Row`'s, which reads it back), for
/// measuring a network path from outside (tools/bench/clock-network.sh): where the agent's
/// clock is the shared one, t2 − t1 and t4 − t3 are the two one-way delays themselves.
/// A write that fails turns the log off; the clock goes on.
final class ClockLog: Sendable {
    private let handle: NIOLockedValueBox<FileHandle?>

    init?(path: String?) {
        guard let path else { return nil }
        guard FileManager.default.fileExists(atPath: path) || FileManager.default.createFile(atPath: path, contents: nil),
              let file = FileHandle(forWritingAtPath: path) else { return nil }
        file.seekToEndOfFile()
        handle = NIOLockedValueBox(file)
    }

    func write(_ sample: ClockSample, path: ClockReplay.Path) {
        let line = Data((ClockReplay.Row(path: path, sample: sample).line + "\n").utf8)
        handle.withLockedValue { file in
            do { try file?.write(contentsOf: line) } catch { file = nil }
        }
    }
}
