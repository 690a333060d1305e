import DualCamCore
import DualCamMedia
import Foundation
import Testing

/// A CPU quota on the agent's process (the kernel's cgroup cpu controller): what a Pi that
/// throttles, or a busy neighbour, does to an encoder. The benchmark with every budget is
/// tools/bench/encoder-budget.sh; this is its short version.
enum CPUBudget {
    /// v1's cpu controller where mounted (these machines), else v2's; nil without either
    /// or without the right to make a group (not root).
    static let root: String? = {
        for candidate in ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup"] {
            let probe = candidate + "/dualcam-test-probe-\(getpid())"
            let quotaFile = candidate.hasSuffix("/cpu") ? "/cpu.cfs_quota_us" : "/cpu.max"
            guard FileManager.default.fileExists(atPath: candidate + (candidate.hasSuffix("/cpu") ? "/cpu.cfs_quota_us" : "/cpu.max")),
                  mkdir(probe, 0o755) == 0 else { continue }
            defer { rmdir(probe) }
            if FileManager.default.fileExists(atPath: probe + quotaFile) { return candidate }
        }
        return nil
    }()

    final class Group {
        let path: String
        let isV1: Bool

        init(_ name: String) throws {
            let root = try #require(CPUBudget.root)
            isV1 = root.hasSuffix("/cpu")
            path = root + "/" + name
            _ = mkdir(path, 0o755)
        }

        /// `percent` of one core, over 100 ms periods.
        func limit(percent: Int) throws {
            if isV1 {
                try "100000".write(toFile: path + "/cpu.cfs_period_us", atomically: false, encoding: .utf8)
                try "\(percent * 1000)".write(toFile: path + "/cpu.cfs_quota_us", atomically: false, encoding: .utf8)
            } else {
                try "\(percent * 1000) 100000".write(toFile: path + "/cpu.max", atomically: false, encoding: .utf8)
            }
        }

        /// Moves a process, every thread of it, into the group.
        func add(pid: Int32) throws {
            try "\(pid)".write(toFile: path + "/cgroup.procs", atomically: false, encoding: .utf8)
        }

        deinit { rmdir(path) }
    }
}

extension EndToEnd {
    @Suite(.enabled(if: CPUBudget.root != nil, "needs a cgroup cpu controller and the right to make a group (root)"))
    struct PresetBudgetTests {
        /// The budget cut from a whole core to 15 % a few seconds into a take: the agent
        /// steps to a faster preset (cutting a segment early) and loses no frame.
        @Test func aBudgetCutMidTakeSwitchesPresetWithoutDroppingAFrame() throws {
            let out = NSTemporaryDirectory() + "dualcam-budget-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: out) }
            let group = try CPUBudget.Group("dualcam-test-\(getpid())")
            try group.limit(percent: 100)
            let agent = try Child("dualcam-agent", ["record", "--source", "synthetic", "--audio", "none", "--duration", "10",
                                                    "--out", out, "--size", "640x360", "--fps", "30", "--preset", "auto"])
            try group.add(pid: agent.process.processIdentifier)
            let chosen = try #require(agent.waitForErr(containing: "preset auto:", seconds: 30), "\(agent.errTail())")
            Thread.sleep(forTimeInterval: 3)
            try group.limit(percent: 15)
            #expect(agent.finish(seconds: 60) == 0, "\(agent.errTail())")
            let stdout = agent.out.all()
            print("budget cut: \(chosen.split(separator: "]").last ?? "")\n\(stdout)")
            #expect(stdout.contains("recorded 300 frames in"), "\(stdout)")
            #expect(stdout.contains(", 0 dropped"), "\(stdout)")
            let switches = stdout.split(separator: "\n").filter { $0.hasPrefix("preset ") }
            #expect(!switches.isEmpty, "no preset switch: \(stdout)")
            let movie = try #require(stdout.split(separator: "\n").first { $0.hasPrefix("file: ") }).dropFirst(6)
            // Ultrafast is baseline profile, every other preset high: a switch to it brings new
            // parameter sets, and the file must say they may change. Every frame decodes, one
            // frame period apart by the codes drawn in them.
            if switches.contains(where: { $0.hasPrefix("preset ultrafast") }) {
                #expect(try MP4SampleEntry.types(path: String(movie)).contains("avc3"))
            }
            var codes: [UInt32] = []
            try MediaProbe.forEachFrame(path: String(movie)) { codes.append(DCTC.read($0.image)) }
            #expect(codes.count == 300)
            for (a, b) in zip(codes, codes.dropFirst()) {
                #expect(abs(DCTC.differenceNanoseconds(b, a) - 33_333_333) <= 100_000, "codes \(a) → \(b)")
            }
        }

        /// A budget so small that even ultrafast cannot keep 1080p30: nothing is recorded,
        /// and the refusal names the sizes and rates measured to fit on this node.
        @Test func aNodeTooSlowForTheModeRefusesItNamingWhatFits() throws {
            let out = NSTemporaryDirectory() + "dualcam-refuse-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: out) }
            let group = try CPUBudget.Group("dualcam-refuse-\(getpid())")
            try group.limit(percent: 8)
            let agent = try Child("dualcam-agent", ["record", "--source", "synthetic", "--audio", "none", "--duration", "5",
                                                    "--out", out, "--size", "1920x1080", "--fps", "30", "--preset", "auto"])
            try group.add(pid: agent.process.processIdentifier)
            let status = agent.finish(seconds: 120)
            let said = agent.out.all() + agent.err.all()
            print("refusal: \(said.split(separator: "\n").first { $0.contains("cannot be recorded") } ?? "none")")
            #expect(status != 0)
            #expect(said.contains("1920x1080 at 30 fps cannot be recorded in real time on this node: even ultrafast encodes"), "\(said.suffix(1500))")
            #expect(said.contains("measured to fit here:") || said.contains("nothing measured down to 640x360 fits"), "\(said.suffix(1500))")
            #expect(!said.split(separator: "\n").contains { $0.hasPrefix("recorded ") }, "\(said.suffix(1500))")
        }
    }
}
