/// How much later a sound appears in one recording than in another.
public struct AudioOffset: Sendable, Equatable, Codable {
    /// Positive when `other` is late: the same sound comes later in it than in `reference`.
    public var nanoseconds: Int64
    /// The normalised correlation at the peak, 0…1; 1 means one signal is a scaled,
    /// delayed copy of the other.
    public var confidence: Double

    public init(nanoseconds: Int64, confidence: Double) {
        self.nanoseconds = nanoseconds
        self.confidence = confidence
    }
}
