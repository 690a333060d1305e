import DualCamProtocol
import NIOCore

/// Sends envelopes on one connection. Safe to share between the tasks of a connection
/// (the underlying writer serialises writes; the pipeline numbers them in wire order).
public final class EnvelopeWriter: Sendable {
    private let writer: NIOAsyncChannelOutboundWriter<Dualcam_V1_Envelope>

    public init(_ writer: NIOAsyncChannelOutboundWriter<Dualcam_V1_Envelope>) {
        self.writer = writer
    }

    public func send(_ body: Dualcam_V1_Envelope.OneOf_Body) async throws {
        var envelope = Dualcam_V1_Envelope()
        envelope.body = body
        try await writer.write(envelope)
    }

    public func sendError(_ code: Dualcam_V1_ErrorCode, _ message: String, fatal: Bool, sessionID: String = "") async throws {
        var error = Dualcam_V1_Error()
        error.code = code
        error.message = message
        error.fatal = fatal
        error.sessionID = sessionID
        try await send(.error(error))
    }

    /// Sends a Keepalive every two seconds until the returned task is cancelled: for
    /// stretches where a person, not the protocol, decides when the next message comes.
    public func keepalives() -> Task<Void, Error> {
        Task {
            while !Task.isCancelled {
                try await Task.sleep(nanoseconds: 2_000_000_000)
                try await send(.keepalive(Dualcam_V1_Keepalive()))
            }
        }
    }
}
