extension VideoEncoderSettings {
    /// Bits per second from "6000000", "6M" or "800k"; nil when it is none of these.
    public static func parseBitrate(_ text: String) -> Int? {
        let lower = text.lowercased()
        let multipliers: [Character: Double] = ["k": 1e3, "m": 1e6]
        // Int(exactly:) rather than Int(): "1e300M" or "infk" is no bitrate, not a trap.
        if let last = lower.last, let m = multipliers[last], let v = Double(lower.dropLast()) { return Int(exactly: (v * m).rounded()) }
        return Int(lower)
    }
}
