/// Audio offset at the start and at the end of a recording: the sync report's measure
/// that does not depend on the video or on any timestamp.
public struct AudioSyncReport: Sendable, Equatable, Codable {
    public var start: AudioOffset
    public var end: AudioOffset
    /// `end − start`.
    public var driftNanoseconds: Int64
    /// Time between the centres of the two windows.
    public var spanSeconds: Double

    public init(start: AudioOffset, end: AudioOffset, driftNanoseconds: Int64, spanSeconds: Double) {
        self.start = start
        self.end = end
        self.driftNanoseconds = driftNanoseconds
        self.spanSeconds = spanSeconds
    }
}
