/// The synthetic audio companion of DCTC (`TIMECODE.md`, "Audio companion"): silence,
/// and a 1 kHz burst 20 ms long at −12 dBFS starting at every whole second of the true clock.
public enum ToneBurst {
    public static let frequencyHz: Double = 1000
    public static let durationNanoseconds: Int64 = 20_000_000
    /// −12 dBFS, 10^(−12/20), written out because the core has no `pow`.
    public static let amplitude: Float = Float(0.251_188_643_150_958_01)

    /// Exactly one period of the tone, in nanoseconds (1 kHz divides a second evenly).
    static let periodNanoseconds = Int64((1e9 / frequencyHz).rounded())

    public static func sample(atTrueNanoseconds t: Int64) -> Float {
        let second: Int64 = 1_000_000_000
        var intoSecond = t % second
        if intoSecond < 0 { intoSecond += second }  // the spec floors; Swift truncates
        guard intoSecond < durationNanoseconds else { return 0 }
        // The phase is taken in integers within one period, so it is as exact after days
        // as in the first second.
        let phase = Double(intoSecond % periodNanoseconds) / Double(periodNanoseconds)
        return amplitude * Float(Sinusoid.sin(turns: phase))
    }
}
