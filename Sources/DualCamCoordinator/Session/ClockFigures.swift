import DualCamProtocol
import Foundation

/// How an agent's clock status reads in progress lines and errors.
enum ClockFigures {
    static func describe(_ s: Dualcam_V1_ClockStatus) -> String {
        let state: String
        switch s.state {
        case .clockLocked: state = "locked"
        case .clockConverging: state = "converging"
        default: state = "unsynced"
        }
        return String(format: "%@, offset %.3f ms, rate %+.1f ppm, bound %d µs, round trip %d µs, %d exchanges used",
                      state, s.offsetNs / 1e6, s.ratePpm, s.errorBoundNs / 1000, s.roundTripNs / 1000, s.samples)
    }
}
