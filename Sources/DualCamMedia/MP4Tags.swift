/// What an MP4 says about itself beyond its media: when it was made, its start timecode
/// (written by libavformat as a `tmcd` track from the video stream's `timecode`), the
/// file's metadata (title, comment…) and its video track's name.
public struct MP4Tags: Sendable, Equatable {
    public var creationTimeUnixSeconds: Int64?
    /// `HH:MM:SS:FF`, or `HH:MM:SS;FF` for drop-frame; nil writes no timecode track.
    public var timecode: String?
    /// File-level metadata as libavformat names it (`title`, `comment`, `album`…).
    public var metadata: [String: String]
    /// The video track's handler name, which editors show as the track's name.
    public var trackName: String?

    public init(creationTimeUnixSeconds: Int64? = nil, timecode: String? = nil, metadata: [String: String] = [:],
                trackName: String? = nil) {
        self.creationTimeUnixSeconds = creationTimeUnixSeconds
        self.timecode = timecode
        self.metadata = metadata
        self.trackName = trackName
    }
}
