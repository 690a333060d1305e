import Foundation

/// Session folders written by hand, as a recorder would leave them, for the library's
/// tests; each piece can be replaced by a damaged one.
enum SessionFixtures {
    static func makeRoot() throws -> String {
        let root = NSTemporaryDirectory() + "dualcam-library-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        return root
    }

    /// A folder `id` in `directory` with `segments/` and the given files.
    @discardableResult
    static func session(_ id: String, in directory: String, files: [String: String]) throws -> String {
        let path = directory + "/" + id
        try FileManager.default.createDirectory(atPath: path + "/segments", withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + name)) }
        return path
    }

    /// A readable `session.json`; `stop` in shared nanoseconds.
    static func record(id: String, stop: String = "0") -> String {
        """
        {"sessionID": "\(id)", "startWallTime": "2026-11-24T12:00:00Z", "wallStartUnixSeconds": 1795521600,
         "t0SharedNanoseconds": 1000000000, "stopSharedNanoseconds": \(stop), "bootID": "x",
         "width": 640, "height": 360, "fps": "30", "encoder": "libx264", "preset": "veryfast", "crf": 23,
         "segmentMilliseconds": 2000, "genlock": true, "layout": "pip", "filter": "none", "filterIntensity": 100,
         "agents": [{"name": "host-pi", "role": "host", "deviceID": "AAAA", "hosts": ["127.0.0.1"], "port": 7420}]}
        """
    }

    /// A readable `manifest.json`; `duration` and the host's file name as JSON text.
    static func manifest(id: String, duration: String = "12.5", hostFile: String = "DualCam_Host_20261124_120000.mp4") -> String {
        let distribution = #"{"count": 1, "meanMicroseconds": 1, "p50Microseconds": 1, "p99Microseconds": 1, "maxMicroseconds": 1}"#
        return """
        {"sessionID": "\(id)", "startWallTime": "2026-11-24T12:00:00Z", "t0SharedNanoseconds": 1000000000,
         "durationSeconds": \(duration),
         "settings": {"width": 640, "height": 360, "fps": "30", "encoder": "libx264", "preset": "veryfast", "crf": 23,
                      "segmentMilliseconds": 2000, "genlock": true},
         "cameras": [{"file": "\(hostFile)", "deviceID": "AAAA",
                      "statistics": {"name": "host-pi", "role": "host", "framesCaptured": 375, "framesDropped": 0, "segments": 7,
                                     "clockOffsetNanoseconds": 0, "clockRatePPM": 0, "clockErrorBoundNanoseconds": 1000}}],
         "composite": {"file": "DualCam_Combined_20261124_120000.mp4", "layout": "pip", "filter": "none", "ticks": 375,
                       "pairs": 375, "repeats": 0, "noSignal": 0, "droppedFrames": 0,
                       "frameError": \(distribution), "pairSpread": \(distribution)},
         "warnings": []}
        """
    }
}
