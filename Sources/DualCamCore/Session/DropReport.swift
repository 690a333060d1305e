/// The words for frames a node lost, kept in the session's warnings: a figure shown once
/// in a status line while recording is easily missed, and a file with holes in it is what
/// the user took home.
public enum DropReport {
    /// nil when nothing was dropped.
    public static func warning(name: String, dropped: Int, captured: Int, width: Int, height: Int, rate: FrameRate) -> String? {
        guard dropped > 0 else { return nil }
        let total = dropped + captured
        let percent = total > 0 ? Double(dropped) * 100 / Double(total) : 100
        let share = percent < 1 ? "under 1 %" : "\(Int(percent.rounded())) %"
        var advice = "its file skips those instants"
        if let smaller = smallerSize(width: width, height: height) {
            advice += "; the node could not keep up: record smaller (--size \(smaller.width)x\(smaller.height)), at a lower "
                + "rate, or with a faster preset"
        }
        return "\(name) dropped \(dropped) of \(total) frames (\(share)) at \(width)x\(height) \(rate) fps; " + advice
    }

    /// The next common size down with the same shape, for the advice.
    static func smallerSize(width: Int, height: Int) -> (width: Int, height: Int)? {
        let heights = [2160, 1440, 1080, 720, 540, 360, 240]
        guard let next = heights.first(where: { $0 < height }) else { return nil }
        let w = (width * next / height) & ~1
        return (w, next)
    }
}
