/// An error raised by the protocol layer: framing, decoding or a state-machine refusal.
///
/// A struct with static members rather than an enum, so that new codes can be added
/// without breaking exhaustive `switch`es in the agent and coordinator.
public struct ProtocolError: Error, Hashable, CustomStringConvertible, Sendable {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        /// The wire code a peer is told about when this error ends a connection.
        public let wireCode: Dualcam_V1_ErrorCode

        public init(name: String, wireCode: Dualcam_V1_ErrorCode) {
            self.name = name
            self.wireCode = wireCode
        }

        public var description: String { name }

        public static let frameTooLarge = Code(name: "frameTooLarge", wireCode: .errorFrameTooLarge)
        public static let emptyFrame = Code(name: "emptyFrame", wireCode: .errorBadMessage)
        public static let undecodableFrame = Code(name: "undecodableFrame", wireCode: .errorBadMessage)
        public static let truncatedFrame = Code(name: "truncatedFrame", wireCode: .errorBadMessage)
        public static let badMessage = Code(name: "badMessage", wireCode: .errorBadMessage)
        public static let badState = Code(name: "badState", wireCode: .errorBadState)
        public static let versionMismatch = Code(name: "versionMismatch", wireCode: .errorVersionMismatch)
        public static let timeout = Code(name: "timeout", wireCode: .errorTimeout)
        public static let checksumMismatch = Code(name: "checksumMismatch", wireCode: .errorChecksumMismatch)
        public static let flowControl = Code(name: "flowControl", wireCode: .errorFlowControl)
        public static let closed = Code(name: "closed", wireCode: .errorBadState)
        public static let peerError = Code(name: "peerError", wireCode: .errorUnspecified)
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.name): \(message)" }

    public static func frameTooLarge(length: Int, limit: Int = WireProtocol.maxFrameBytes) -> ProtocolError {
        ProtocolError(.frameTooLarge, "frame of \(length) bytes exceeds the limit of \(limit) bytes")
    }

    /// The Error message to send a peer before closing because of this error.
    public func wireError(fatal: Bool = true) -> Dualcam_V1_Error {
        var e = Dualcam_V1_Error()
        e.code = code.wireCode
        e.message = message
        e.fatal = fatal
        return e
    }
}
