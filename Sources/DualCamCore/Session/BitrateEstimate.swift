/// Bits per second an encode will produce: the set bitrate, or for constant quality (CRF)
/// a generous estimate (0.1 bit per pixel at veryfast, CRF 23, for a talking head): how
/// long a disk lasts is better underestimated than overestimated. One rule for the agent's
/// space check and the coordinator's pre-flight.
public enum BitrateEstimate {
    public static func bitsPerSecond(width: Int, height: Int, framesPerSecond: Double, crf: Int?, bitrate: Int?) -> Int {
        if let bitrate { return bitrate }
        let pixelsPerSecond = Double(width * height) * framesPerSecond
        // Each 6 CRF steps roughly halve or double the rate.
        return Int(pixelsPerSecond * 0.1 * Exponential.pow(2, (23 - Double(crf ?? 23)) / 6))
    }

    /// Bytes `seconds` of a recording at `bitsPerSecond` take on disk, with a margin for
    /// the encoder overshooting its rate and the container's overhead (25 %).
    public static func storageBytes(bitsPerSecond: Int, seconds: Double) -> Double {
        Double(bitsPerSecond) / 8 * seconds * 1.25
    }
}
