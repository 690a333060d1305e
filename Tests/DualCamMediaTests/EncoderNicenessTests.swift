import DualCamCore
import DualCamMedia
import Foundation
import Testing

/// The live composite's encoder runs below the agents' previews (issue 37): the threads the
/// codec starts as it opens run at the nice value its settings ask for, and the thread
/// that opened it stays as it was.
struct EncoderNicenessTests {
    /// Each thread of this process with its nice value (field 19 of /proc/self/task/TID/stat).
    static func threads() -> [Int: Int] {
        var niceness: [Int: Int] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [] {
            guard let tid = Int(task), let nice = Self.nice(statPath: "/proc/self/task/\(task)/stat") else { continue }
            niceness[tid] = nice
        }
        return niceness
    }

    static func nice(statPath: String) -> Int? {
        // The command name (field 2) may hold spaces: count from its closing parenthesis,
        // after which field 3 comes first.
        guard let stat = try? String(contentsOfFile: statPath, encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 16 ? Int(fields[16]) : nil
    }

    @Test func theEncodersThreadsRunAtItsNicenessAndTheOpenerStaysAsItWas() throws {
        let before = Self.threads()
        let opener = Self.nice(statPath: "/proc/thread-self/stat")
        // Two threads asked for: x264 starts them as it opens, on any number of cores.
        var settings = VideoEncoderSettings(width: 320, height: 240, rate: FrameRate(30, 1), preset: "ultrafast",
                                            gopFrames: 30, threads: 2)
        settings.threadNiceness = 15
        let encoder = try VideoEncoder(settings: settings)
        let started = Self.threads().filter { before[$0.key] == nil }
        #expect(started.values.contains(15), "threads started while the encoder opened, with their nice values: \(started)")
        #expect(Self.nice(statPath: "/proc/thread-self/stat") == opener)
        #expect(opener != nil)
        // Opened on another thread, it encodes on this one.
        var packets = try encoder.encode(YUV420Image(width: 320, height: 240), ptsNanoseconds: 0, forceKeyframe: true)
        packets += try encoder.flush()
        #expect(packets.count == 1)
    }
}
