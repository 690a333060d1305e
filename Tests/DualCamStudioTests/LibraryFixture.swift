import Foundation

/// A library folder with sessions written by hand, as a recorder leaves them, for the
/// studio's library routes; removed by `remove()`.
struct LibraryFixture {
    let root: String

    init() throws {
        root = NSTemporaryDirectory() + "dualcam-studio-library-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/library", withIntermediateDirectories: true)
    }

    /// The folder the studio records into and lists.
    var library: String { root + "/library" }

    func remove() { try? FileManager.default.removeItem(atPath: root) }

    static let hostFile = "DualCam_Host_20261124_120000.mp4"
    static let combinedFile = "DualCam_Combined_20261124_120000.mp4"

    /// A finished session `id` in `directory` (the library unless told), its manifest with
    /// `warnings` and `dropped` frames of 555, and its two MP4s holding `media`.
    @discardableResult
    func session(_ id: String, in directory: String? = nil, warnings: [String] = [], dropped: Int = 0,
                 media: String = "not an mp4") throws -> String {
        let path = (directory ?? library) + "/" + id
        try FileManager.default.createDirectory(atPath: path + "/segments", withIntermediateDirectories: true)
        let distribution = #"{"count": 1, "meanMicroseconds": 1, "p50Microseconds": 1, "p99Microseconds": 1, "maxMicroseconds": 1}"#
        let quoted = try String(decoding: JSONSerialization.data(withJSONObject: warnings), as: UTF8.self)
        let manifest = """
            {"sessionID": "\(id)", "startWallTime": "2026-11-24T12:00:00Z", "t0SharedNanoseconds": 1000000000,
             "durationSeconds": 18.5,
             "settings": {"width": 640, "height": 360, "fps": "30", "encoder": "libx264", "preset": "veryfast", "crf": 23,
                          "segmentMilliseconds": 2000, "genlock": true},
             "cameras": [{"file": "\(Self.hostFile)", "deviceID": "AAAA",
                          "statistics": {"name": "host-pi", "role": "host", "framesCaptured": \(555 - dropped),
                                         "framesDropped": \(dropped), "segments": 10,
                                         "clockOffsetNanoseconds": 0, "clockRatePPM": 0, "clockErrorBoundNanoseconds": 1000}}],
             "composite": {"file": "\(Self.combinedFile)", "layout": "pip", "filter": "none", "ticks": 555,
                           "pairs": 555, "repeats": 0, "noSignal": 0, "droppedFrames": \(dropped),
                           "frameError": \(distribution), "pairSpread": \(distribution)},
             "warnings": \(quoted)}
            """
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: path + "/manifest.json"))
        for name in [Self.hostFile, Self.combinedFile] {
            try Data(media.utf8).write(to: URL(fileURLWithPath: path + "/" + name))
        }
        return path
    }
}
