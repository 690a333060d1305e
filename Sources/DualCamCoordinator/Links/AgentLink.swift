import DualCamNet
import DualCamProtocol
import NIOCore

/// Where to reach an agent and which device ID to pin.
public struct AgentEndpoint: Sendable, Hashable {
    public var host: String
    public var port: Int
    public var deviceID: DeviceID

    public init(host: String, port: Int, deviceID: DeviceID) {
        self.host = host
        self.port = port
        self.deviceID = deviceID
    }
}

/// What happens on the agents' connections, merged into one stream for the session.
enum LinkEvent: Sendable {
    case message(agent: Int, ReceivedEnvelope)
    case closed(agent: Int, String?)
}

/// One open connection to an agent: a writer for sending, and a task that forwards every
/// inbound envelope into the session's event stream.
final class AgentLink: Sendable {
    let index: Int
    let endpoint: AgentEndpoint
    let writer: EnvelopeWriter
    private let channel: Channel

    private init(index: Int, endpoint: AgentEndpoint, writer: EnvelopeWriter, channel: Channel) {
        self.index = index
        self.endpoint = endpoint
        self.writer = writer
        self.channel = channel
    }

    static func open(index: Int, endpoint: AgentEndpoint, identity: DeviceIdentity,
                     events: AsyncStream<LinkEvent>.Continuation) async throws -> AgentLink {
        let connection = try await TLSTransport.connect(
            host: endpoint.host, port: endpoint.port, identity: identity, expectedPeer: endpoint.deviceID,
            clock: { MonotonicTime.now() })
        let underlying = connection.channel
        let writer = try await withCheckedThrowingContinuation { (ready: CheckedContinuation<EnvelopeWriter, Error>) in
            Task {
                var receivedAnything = false
                var failure: Error?
                do {
                    try await connection.executeThenClose { inbound, outbound in
                        ready.resume(returning: EnvelopeWriter(outbound))
                        for try await message in inbound {
                            receivedAnything = true
                            events.yield(.message(agent: index, message))
                        }
                    }
                } catch {
                    failure = error
                }
                let reason = failure == nil && receivedAnything ? nil
                    : TLSTransport.explain(failure, receivedAnything: receivedAnything, host: endpoint.host,
                                           port: endpoint.port, identity: identity)
                events.yield(.closed(agent: index, reason))
            }
        }
        return AgentLink(index: index, endpoint: endpoint, writer: writer, channel: underlying)
    }

    func close() {
        channel.close(promise: nil)
    }
}
