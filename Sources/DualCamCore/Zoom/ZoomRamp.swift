/// A digital zoom over time: from one factor and centre to another, eased over a set
/// duration, then held. Pure: time comes in as a value (any clock's nanoseconds, the same
/// clock for every call).
///
/// The factor moves geometrically (equal ratios in equal times), because that is how a
/// zoom looks even: 1×→2× and 2×→4× take the same time and feel alike. The progress is
/// smoothstep-eased, so the picture starts and stops moving gently; both are monotonic,
/// so the scale never reverses during a ramp.
public struct ZoomRamp: Sendable, Hashable, CustomStringConvertible {
    /// The factors DualCam crops to: at 4× a 1080p picture is cut from 480x270 pixels,
    /// below which a webcam's picture is mush.
    public static let factors: ClosedRange<Double> = 1...4
    /// The longest ramp: slower than this is a setting forgotten, not a zoom.
    public static let maxDurationNanoseconds: Int64 = 60_000_000_000

    public var from: Double
    public var to: Double
    public var fromCentre: ZoomPoint
    public var toCentre: ZoomPoint
    public var startNanoseconds: Int64
    public var durationNanoseconds: Int64

    /// No zoom at all: the whole picture.
    public static let none = ZoomRamp.steady(1, centre: .centre)

    public static func steady(_ factor: Double, centre: ZoomPoint) -> ZoomRamp {
        ZoomRamp(from: factor, to: factor, fromCentre: centre, toCentre: centre, startNanoseconds: 0, durationNanoseconds: 0)
    }

    private init(from: Double, to: Double, fromCentre: ZoomPoint, toCentre: ZoomPoint, startNanoseconds: Int64,
                 durationNanoseconds: Int64) {
        self.from = from
        self.to = to
        self.fromCentre = fromCentre
        self.toCentre = toCentre
        self.startNanoseconds = startNanoseconds
        self.durationNanoseconds = durationNanoseconds
    }

    /// Why a factor or ramp time cannot be used, in a sentence that says what can; nil when it can.
    public static func problem(factor: Double, rampSeconds: Double) -> String? {
        guard factor.isFinite, factors.contains(factor) else {
            return "zoom \(factor) is out of range: digital zoom goes from 1 to 4 (1 is the whole picture)"
        }
        guard rampSeconds.isFinite, rampSeconds >= 0, rampSeconds * 1e9 <= Double(maxDurationNanoseconds) else {
            return "zoom ramp \(rampSeconds) s is out of range: 0 (at once) to \(maxDurationNanoseconds / 1_000_000_000) s"
        }
        return nil
    }

    /// A ramp from wherever this one is at `now` to `factor` at `centre`, over `durationNanoseconds`.
    /// `factor` must be within `factors` and the duration within 0…`maxDurationNanoseconds`
    /// (see `problem`); out-of-range values are clamped so that nothing here can trap.
    public func retargeted(to factor: Double, centre: ZoomPoint, at now: Int64, durationNanoseconds: Int64) -> ZoomRamp {
        let target = factor.isFinite ? min(max(factor, Self.factors.lowerBound), Self.factors.upperBound) : 1
        return ZoomRamp(from: self.factor(at: now), to: target, fromCentre: self.centre(at: now), toCentre: centre,
                        startNanoseconds: now,
                        durationNanoseconds: min(max(durationNanoseconds, 0), Self.maxDurationNanoseconds))
    }

    /// Eased progress 0…1 at `t`.
    public func progress(at t: Int64) -> Double {
        guard durationNanoseconds > 0 else { return 1 }
        if t <= startNanoseconds { return 0 }
        let elapsed = t.subtractingReportingOverflow(startNanoseconds)
        if elapsed.overflow || elapsed.partialValue >= durationNanoseconds { return 1 }
        let s = Double(elapsed.partialValue) / Double(durationNanoseconds)
        return s * s * (3 - 2 * s)
    }

    public func factor(at t: Int64) -> Double {
        let p = progress(at: t)
        if p >= 1 { return to }
        if p <= 0 { return from }
        return from * Exponential.pow(to / from, p)
    }

    public func centre(at t: Int64) -> ZoomPoint {
        let p = progress(at: t)
        if p >= 1 { return toCentre }
        if p <= 0 { return fromCentre }
        return ZoomPoint(x: fromCentre.x + (toCentre.x - fromCentre.x) * p,
                         y: fromCentre.y + (toCentre.y - fromCentre.y) * p) ?? toCentre
    }

    /// True once the ramp has arrived and holds 1×: frames pass untouched.
    public func isIdentity(at t: Int64) -> Bool { progress(at: t) >= 1 && to == 1 }

    public var description: String {
        durationNanoseconds == 0 || from == to && fromCentre == toCentre
            ? "\(Self.text(to))× at \(toCentre)"
            : "\(Self.text(from))×→\(Self.text(to))× at \(toCentre) over \(Double(durationNanoseconds) / 1e9) s"
    }

    static func text(_ factor: Double) -> String {
        let rounded = (factor * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
