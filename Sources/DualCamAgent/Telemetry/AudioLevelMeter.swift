import Foundation

/// Peak and RMS level of the sound since the last reading, in dBFS (0 dBFS is full scale),
/// for the telemetry's meters. Silence reads as `floorDBFS`, never −∞, so it can be shown.
struct AudioLevelMeter: Sendable {
    static let floorDBFS = -96.0
    private var peak: Float = 0
    private var sumOfSquares: Double = 0
    private var count = 0

    init() {}

    mutating func add(_ samples: [Float]) {
        var top = peak, sum: Float = 0
        samples.withUnsafeBufferPointer { buffer in
            for s in buffer {
                let a = s < 0 ? -s : s
                if a > top { top = a }
                sum += s * s
            }
        }
        peak = top
        sumOfSquares += Double(sum)
        count += samples.count
    }

    /// The levels since the previous reading; starts a new window.
    mutating func read() -> (peakDBFS: Double, rmsDBFS: Double) {
        defer {
            peak = 0
            sumOfSquares = 0
            count = 0
        }
        let rms = count > 0 ? (sumOfSquares / Double(count)).squareRoot() : 0
        return (Self.dbfs(Double(peak)), Self.dbfs(rms))
    }

    static func dbfs(_ amplitude: Double) -> Double {
        amplitude > 0 ? max(floorDBFS, 20 * log10(amplitude)) : floorDBFS
    }

    /// A gain in dB as the factor samples are multiplied by.
    static func factor(gainDB: Double) -> Float { Float(pow(10, gainDB / 20)) }
}
