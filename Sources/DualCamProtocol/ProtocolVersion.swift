/// Version and limits of the wire protocol this build speaks. See Protocol/PROTOCOL.md.
public enum WireProtocol {
    /// Incremented for incompatible changes; peers with different majors refuse each other.
    public static let major: UInt32 = 1
    /// Incremented for additive changes; peers with different minors interoperate.
    public static let minor: UInt32 = 9

    /// Largest encoded Envelope (excluding the 4-byte prefix) either side accepts.
    /// A 256 KiB SegmentData chunk plus its small header fits with a wide margin, while a
    /// hostile or corrupt length can make the receiver buffer at most 4 MiB.
    public static let maxFrameBytes = 4 * 1024 * 1024
    /// Largest payload of one SegmentData message.
    public static let maxSegmentChunkBytes = 256 * 1024
    /// Largest H.264 access unit in one PreviewFrame: a 640x360 key frame at a generous
    /// bitrate is 30-60 KB; a 1080p one under 500 KB.
    public static let maxPreviewFrameBytes = 1024 * 1024
    /// Length of the big-endian length prefix in front of every Envelope.
    public static let lengthPrefixBytes = 4
    /// Most preset switches one RecordingFinished lists: the governor holds a preset 20 s
    /// at least, so this is hours of a node on the edge, and at most 1 MB of reasons.
    public static let maxPresetSwitches = 1024
    /// Length of a clock lane's key (§20): an HMAC-SHA256 key of the hash's own size.
    public static let clockLaneKeyBytes = 32
    /// Upload window used when Hello.upload_window_bytes is 0.
    public static let defaultUploadWindowBytes: UInt64 = 8 * 1024 * 1024
    /// Largest segment an agent may offer; a 2 s segment at 100 Mbit/s is 25 MB.
    public static let maxSegmentBytes: UInt64 = 1 << 30
    /// Longest session ID; session IDs become file names on the coordinator.
    public static let maxSessionIDBytes = 64
    /// Segments one connection may track at once (offered, not yet durably acknowledged),
    /// so a peer cannot grow the other side's bookkeeping without bound.
    public static let maxTrackedSegments = 256

    /// The window both sides use for a Hello announcing `announced` bytes.
    public static func uploadWindow(announced: UInt64) -> UInt64 {
        if announced == 0 { return defaultUploadWindowBytes }
        return max(announced, UInt64(maxSegmentChunkBytes))
    }

    /// This build's version as a message, for Hello and HelloAck.
    public static var version: Dualcam_V1_ProtocolVersion {
        var v = Dualcam_V1_ProtocolVersion()
        v.major = major
        v.minor = minor
        return v
    }

    /// Returns nil when a peer speaking `peer` can be talked to, else a message naming both
    /// versions, suitable for logs and for an ERROR_VERSION_MISMATCH sent to the peer.
    /// Only the major version matters: minors are additive by rule.
    public static func checkCompatible(peer: Dualcam_V1_ProtocolVersion) -> String? {
        if peer.major == major { return nil }
        return "protocol version mismatch: peer speaks \(peer.major).\(peer.minor), "
            + "this side speaks \(major).\(minor); major versions must be equal"
    }
}
