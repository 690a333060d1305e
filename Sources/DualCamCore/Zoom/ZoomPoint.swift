/// Where a digital zoom looks: the centre of the crop as a fraction of the picture's
/// width and height (0.5, 0.5 is the middle), so one point means the same spot at every
/// recording size.
public struct ZoomPoint: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public static let centre = ZoomPoint(checkedX: 0.5, y: 0.5)

    private init(checkedX x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// nil unless both are finite and within 0…1: a point from the wire or a command line
    /// is refused, never clamped into something the user did not ask for.
    public init?(x: Double, y: Double) {
        guard x.isFinite, y.isFinite, (0...1).contains(x), (0...1).contains(y) else { return nil }
        self.x = x
        self.y = y
    }

    /// "0.5,0.5" (also "0.5x0.5"), as a command line gives it.
    public init?(parsing text: String) {
        let parts = text.split(whereSeparator: { $0 == "," || $0 == "x" }).map { Double($0.trimmingWhitespace) }
        guard parts.count == 2, let x = parts[0], let y = parts[1] else { return nil }
        self.init(x: x, y: y)
    }

    public var description: String { "\(x),\(y)" }
}
