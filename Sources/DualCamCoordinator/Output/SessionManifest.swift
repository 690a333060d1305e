import Foundation

/// Per-camera figures written into manifest.json.
public struct CameraStatistics: Codable, Sendable {
    public var name: String
    public var role: String
    public var framesCaptured: Int
    public var framesDropped: Int
    public var segments: Int
    public var clockOffsetNanoseconds: Double
    public var clockRatePPM: Double
    public var clockErrorBoundNanoseconds: Int64
}

/// `manifest.json`: what a session was, and how well it went.
struct SessionManifest: Codable {
    struct Camera: Codable {
        var file: String
        var deviceID: String
        var statistics: CameraStatistics
    }
    struct Settings: Codable {
        var width: Int
        var height: Int
        var fps: String
        var encoder: String
        var preset: String
        var crf: Int
        var segmentMilliseconds: Int
        var genlock: Bool
    }
    struct Composite: Codable {
        var file: String
        var layout: String
        var ticks: Int
        var pairs: Int
        var repeats: Int
        var noSignal: Int
        var pairingErrorMeanMicroseconds: Double
        var pairingErrorP99Microseconds: Double
        var pairingErrorMaxMicroseconds: Double
    }
    var sessionID: String
    var startWallTime: String
    var t0SharedNanoseconds: Int64
    var durationSeconds: Double
    var settings: Settings
    var cameras: [Camera]
    var composite: Composite
    var warnings: [String]
}
