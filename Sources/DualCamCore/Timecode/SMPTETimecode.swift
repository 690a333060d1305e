/// A SMPTE timecode on a session's frame rate: a frame count from midnight and the label
/// editors show for it (`HH:MM:SS:FF`, or `HH:MM:SS;FF` in drop-frame). Drop-frame is used
/// exactly where the rate is 30000/1001 or 60000/1001, as cameras and editors expect; it
/// skips labels (never frames) so that the label keeps up with the clock on the wall.
public struct SMPTETimecode: Sendable, Hashable, CustomStringConvertible {
    public let rate: FrameRate
    /// Frames since midnight, counted in the labels' units (wraps at 24 h).
    public let frames: Int64

    /// Whole frames a label second holds: 30 for 29.97, 24 for 23.976.
    public var nominalFramesPerSecond: Int64 { (rate.numerator + rate.denominator - 1) / rate.denominator }
    public var dropFrame: Bool { Self.dropsFrames(rate) }
    /// Labels skipped at the start of each minute not divisible by ten.
    private var droppedPerMinute: Int64 { dropFrame ? nominalFramesPerSecond / 15 : 0 }
    public var framesPerDay: Int64 { Self.daySize(rate) }

    /// Rates a timecode track can carry (those libavformat's `av_timecode` accepts): whole
    /// or NTSC (x/1001) rates of 24, 25, 30, 48, 50, 60, 100 or 120 frames a second.
    public static func supports(_ rate: FrameRate) -> Bool {
        guard rate.denominator == 1 || rate.denominator == 1001 else { return false }
        let nominal = (rate.numerator + rate.denominator - 1) / rate.denominator
        if rate.denominator == 1001 && rate.numerator != nominal * 1000 { return false }
        return [24, 25, 30, 48, 50, 60, 100, 120].contains(nominal)
    }

    public static func dropsFrames(_ rate: FrameRate) -> Bool {
        rate.denominator == 1001 && (rate.numerator == 30000 || rate.numerator == 60000)
    }

    public init(frames: Int64, rate: FrameRate) {
        self.rate = rate
        let day = SMPTETimecode.daySize(rate)
        self.frames = ((frames % day) + day) % day
    }

    private static func daySize(_ rate: FrameRate) -> Int64 {
        let n = (rate.numerator + rate.denominator - 1) / rate.denominator
        return n * 86_400 - (dropsFrames(rate) ? n / 15 * 9 * 6 * 24 : 0)
    }

    /// The timecode of an instant `nanoseconds` after midnight: the label that reads the
    /// clock on the wall, to the nearest label, as a camera jam-synced to time of day
    /// shows it. At an NTSC rate the labels then run 0.1 % slow (drop-frame: 86 ms a day)
    /// from there, but every file of a session counts from the same label.
    public init(timeOfDayNanoseconds nanoseconds: Int64, rate: FrameRate) {
        let n = (rate.numerator + rate.denominator - 1) / rate.denominator
        let labels = (max(nanoseconds, 0) * n + 500_000_000) / 1_000_000_000
        let (h, m, s) = (labels / (n * 3600) % 24, labels / (n * 60) % 60, labels / n % 60)
        var f = labels % n
        let d = SMPTETimecode.dropsFrames(rate) ? n / 15 : 0
        // A label drop-frame skips reads as the first one after it.
        if d > 0 && s == 0 && m % 10 != 0 && f < d { f = d }
        let minutes = h * 60 + m
        self.init(frames: (h * 3600 + m * 60 + s) * n + f - d * (minutes - minutes / 10), rate: rate)
    }

    /// The timecode `count` frames later.
    public func adding(frames count: Int64) -> SMPTETimecode { SMPTETimecode(frames: frames + count, rate: rate) }

    /// The timecode of the frame nearest to `presentationNanoseconds` after this one's
    /// instant, on the rate's exact grid.
    public func at(presentationNanoseconds p: Int64) -> SMPTETimecode {
        adding(frames: GenlockGrid(rate: rate).nearestFrameIndex(to: p))
    }

    /// Hours, minutes, seconds and frames of the label.
    public var fields: (hours: Int64, minutes: Int64, seconds: Int64, frames: Int64) {
        let n = nominalFramesPerSecond
        var count = frames
        let d = droppedPerMinute
        if d > 0 {
            let perTenMinutes = n * 600 - d * 9
            let perMinute = n * 60 - d
            let tens = count / perTenMinutes
            let rest = count % perTenMinutes
            count += d * 9 * tens + (rest > d ? d * ((rest - d) / perMinute) : 0)
        }
        return (count / (n * 3600) % 24, count / (n * 60) % 60, count / n % 60, count % n)
    }

    /// `10:00:00:00`, or `10:00:00;00` in drop-frame: the form libavformat's `timecode`
    /// metadata, FCP XML and EDLs take.
    public var description: String {
        let f = fields
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(f.hours)):\(two(f.minutes)):\(two(f.seconds))\(dropFrame ? ";" : ":")\(two(f.frames))"
    }

    /// Reads `HH:MM:SS:FF` or `HH:MM:SS;FF` (also `.` or `,` before the frames) at `rate`;
    /// nil for a label that does not exist at that rate (a dropped one, frames past the
    /// second, a drop-frame label at a rate without drop-frame).
    public init?(parsing text: String, rate: FrameRate) {
        let parts = text.split(omittingEmptySubsequences: false) { ":;.,".contains($0) }
        guard parts.count == 4, SMPTETimecode.supports(rate) else { return nil }
        let values = parts.compactMap { Int64($0) }
        guard values.count == 4, parts.allSatisfy({ $0.count == 2 }) else { return nil }
        let (h, m, s, f) = (values[0], values[1], values[2], values[3])
        let n = (rate.numerator + rate.denominator - 1) / rate.denominator
        let drop = SMPTETimecode.dropsFrames(rate)
        let marked = text.contains(";") || text.contains(",") || text.contains(".")
        guard marked == drop, h < 24, m < 60, s < 60, f < n else { return nil }
        let d = drop ? n / 15 : 0
        if d > 0 && s == 0 && m % 10 != 0 && f < d { return nil }
        let minutes = h * 60 + m
        self.init(frames: ((h * 3600 + m * 60 + s) * n + f) - d * (minutes - minutes / 10), rate: rate)
    }
}
