import DualCamCore
import DualCamMedia
import Foundation
import Testing

/// The files of the one session recorded into `out`, judged as a user would: every frame
/// of each camera there and in sync, the composite whole.
struct RecordedSession {
    let out: String
    /// Which session folder of `out`; nil: the only one.
    var name: String?

    init(out: String, name: String? = nil) {
        self.out = out
        self.name = name
    }

    var directory: String? {
        if let name { return out + "/" + name }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
        return names.first.map { out + "/" + $0 }
    }

    func manifest() throws -> [String: Any] {
        let path = try #require(directory) + "/manifest.json"
        return try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    func file(_ prefix: String) throws -> String {
        let directory = try #require(directory)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: directory)
            .first { $0.hasPrefix(prefix) && $0.hasSuffix(".mp4") })
        return directory + "/" + name
    }

    func codes(_ prefix: String) throws -> [UInt32] {
        var codes: [UInt32] = []
        try MediaProbe.forEachFrame(path: try file(prefix)) { codes.append(DCTC.read($0.image)) }
        return codes
    }

    /// Both cameras hold `frames` frames, each 1/30 s after the one before (no gap), and
    /// frame k of the host shows the same instant as frame k of the guest.
    func expectEveryFrameInSync(frames: Int) throws {
        let host = try codes("DualCam_Host_")
        let guest = try codes("DualCam_Guest_")
        #expect(host.count == frames && guest.count == frames, "host \(host.count), guest \(guest.count) frames")
        let apart = zip(host, guest).enumerated().filter { abs(DCTC.differenceNanoseconds($1.0, $1.1)) > 500_000 }
        #expect(apart.isEmpty, "\(apart.count) frames out of sync, first: \(apart.prefix(5).map { "frame \($0.offset): host \($0.element.0) guest \($0.element.1)" })")
        for (name, codes) in [("host", host), ("guest", guest)] {
            let steps = zip(codes, codes.dropFirst()).enumerated().filter { abs(DCTC.differenceNanoseconds($1.1, $1.0) - 33_333_333) > 1_000_000 }
            #expect(steps.isEmpty, "\(name): \(steps.count) steps off 1/30 s, first: \(steps.prefix(5).map { "frame \($0.offset)→\($0.offset + 1): \($0.element.0) → \($0.element.1)" })")
        }
    }

    func expectCompositeWhole(frames: Int) throws {
        let composite = try #require(try manifest()["composite"] as? [String: Any])
        #expect(composite["ticks"] as? Int == frames, "\(composite)")
        #expect(composite["noSignal"] as? Int == 0, "\(composite)")
        #expect(composite["pairs"] as? Int == frames, "\(composite)")
        var count = 0
        try MediaProbe.forEachFrame(path: try file("DualCam_Combined_")) { _ in count += 1 }
        #expect(count == frames)
    }
}
