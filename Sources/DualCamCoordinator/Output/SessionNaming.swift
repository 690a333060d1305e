import DualCamProtocol
import Foundation

/// File and folder names of a session, e.g. `DualCam_Host_20261121_143015.mp4`.
enum SessionNaming {
    static func stamp(for date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyyMMdd_HHmmss"
        return f.string(from: date)
    }

    /// The readable start second, then six random hex digits: two takes begun in the same
    /// second (two coordinators, or two runs of one) never share an ID, and so never share
    /// a folder here or a spool folder on an agent. `SessionFolder.date` reads the stamp
    /// back from the first 15 characters.
    static func sessionID(for date: Date) -> String {
        var generator = SystemRandomNumberGenerator()
        let suffix = String(generator.next() & 0xFF_FFFF, radix: 16)
        return stamp(for: date) + "-" + String(repeating: "0", count: 6 - suffix.count) + suffix
    }

    /// One distinct name per camera: Host, Guest, then Camera3, Camera4... so that a rig
    /// with more cameras (or two guests) never writes two files under one name.
    static func cameraNames(roles: [Dualcam_V1_Role]) -> [String] {
        var used = Set<String>()
        return roles.enumerated().map { i, role in
            var name: String
            switch role {
            case .host: name = "Host"
            case .guest: name = "Guest"
            default: name = "Camera\(i + 1)"
            }
            if used.contains(name) { name += "\(i + 1)" }
            used.insert(name)
            return name
        }
    }

    static func file(_ camera: String, stamp: String) -> String { "DualCam_\(camera)_\(stamp).mp4" }

    /// "Host" from "DualCam_Host_20260101_120000.mp4": the camera name `file` was given.
    static func cameraName(ofFile file: String) -> String {
        let parts = file.split(separator: "_")
        return parts.count >= 2 ? String(parts[1]) : file
    }
}
