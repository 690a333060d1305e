import DualCamCore
import NIOConcurrencyHelpers

/// The agent's digital zoom: where it is going and since when, on the agent's local
/// clock. One per process, as the camera is; every capture thread (a take's, the idle
/// preview's) reads it per frame, so the recording and the preview zoom alike.
public final class DigitalZoom: Sendable {
    public static let shared = DigitalZoom()

    private let ramp = NIOLockedValueBox(ZoomRamp.none)

    /// Ramps from wherever the zoom is at `now` (agent local ns) to `factor` at `centre`.
    public func set(factor: Double, centre: ZoomPoint, rampNanoseconds: Int64, now: Int64) {
        ramp.withLockedValue { $0 = $0.retargeted(to: factor, centre: centre, at: now, durationNanoseconds: rampNanoseconds) }
    }

    public var current: ZoomRamp { ramp.withLockedValue { $0 } }
}
