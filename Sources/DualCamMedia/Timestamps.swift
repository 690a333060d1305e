import CFFmpeg
import DualCamCore

/// Time-base arithmetic in one place. The public API speaks Int64 nanoseconds; MPEG-TS
/// and our MP4 tracks speak 1/90000. Conversions round to nearest so that a nanosecond
/// value and its 90 kHz tick survive any number of round trips unchanged.
enum Timestamps {
    static let nanosecondBase = AVRational(num: 1, den: 1_000_000_000)
    static let mpegBase = AVRational(num: 1, den: 90_000)

    /// round(ns * 9 / 100000), the tick the TS muxer stores for `ns`.
    static func ticks90k(_ nanoseconds: Int64) -> Int64 {
        dc_rescale_near_inf(nanoseconds, nanosecondBase, mpegBase)
    }

    static func nanoseconds(_ value: Int64, in base: AVRational) -> Int64 {
        dc_rescale_near_inf(value, base, nanosecondBase)
    }

    static func rescale(_ value: Int64, from: AVRational, to: AVRational) -> Int64 {
        dc_rescale_near_inf(value, from, to)
    }

    static func seconds(_ value: Int64, in base: AVRational) -> Double {
        Double(value) * Double(base.num) / Double(base.den)
    }

    static func rational(_ rate: FrameRate) -> AVRational {
        AVRational(num: Int32(clamping: rate.numerator), den: Int32(clamping: rate.denominator))
    }

    /// One frame period expressed in `base`, rounded to nearest (3000 ticks at 30 fps,
    /// 3003 at 29.97 in 1/90000).
    static func period(of rate: FrameRate, in base: AVRational) -> Int64 {
        av_rescale_q(1, AVRational(num: Int32(clamping: rate.denominator),
                                   den: Int32(clamping: rate.numerator)), base)
    }
}
