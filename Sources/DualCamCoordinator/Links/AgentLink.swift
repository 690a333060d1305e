import DualCamNet
import DualCamProtocol
import NIOCore

/// Where to reach an agent and which device ID to pin. mDNS may resolve an agent to
/// several addresses (IPv4, IPv6, one per interface), not all of which need answer: they
/// are tried in order.
public struct AgentEndpoint: Sendable, Hashable {
    public var hosts: [String]
    public var port: Int
    public var deviceID: DeviceID

    /// The address tried first, and the one named in messages.
    public var host: String { hosts[0] }

    public init(hosts: [String], port: Int, deviceID: DeviceID) {
        precondition(!hosts.isEmpty, "an endpoint needs at least one address")
        self.hosts = hosts
        self.port = port
        self.deviceID = deviceID
    }

    public init(host: String, port: Int, deviceID: DeviceID) {
        self.init(hosts: [host], port: port, deviceID: deviceID)
    }
}

/// One open connection to an agent: a writer for sending, and a task that forwards every
/// inbound envelope into the session's event stream.
final class AgentLink: Sendable {
    let index: Int
    let generation: Int
    let endpoint: AgentEndpoint
    let writer: EnvelopeWriter
    private let channel: Channel

    private init(index: Int, generation: Int, endpoint: AgentEndpoint, writer: EnvelopeWriter, channel: Channel) {
        self.index = index
        self.generation = generation
        self.endpoint = endpoint
        self.writer = writer
        self.channel = channel
    }

    static func open(index: Int, generation: Int = 0, endpoint: AgentEndpoint, identity: DeviceIdentity,
                     events: AsyncStream<SessionEvent>.Continuation) async throws -> AgentLink {
        let (connection, reached) = try await connectAny(endpoint, identity: identity)
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
                            events.yield(.message(agent: index, generation: generation, message))
                        }
                    }
                } catch {
                    failure = error
                }
                let reason = failure == nil && receivedAnything ? nil
                    : TLSTransport.explain(failure, receivedAnything: receivedAnything, host: reached,
                                           port: endpoint.port, identity: identity)
                events.yield(.closed(agent: index, generation: generation, reason))
            }
        }
        return AgentLink(index: index, generation: generation, endpoint: endpoint, writer: writer, channel: underlying)
    }

    /// Tries the endpoint's addresses in order until one answers. A peer that answered
    /// and then failed (a refused pin, a bad certificate) ends the attempt there: another
    /// address would reach the same agent.
    private static func connectAny(_ endpoint: AgentEndpoint,
                                   identity: DeviceIdentity) async throws -> (EnvelopeChannel, String) {
        var unreachable: [String] = []
        for host in endpoint.hosts {
            do {
                let channel = try await TLSTransport.connect(
                    host: host, port: endpoint.port, identity: identity, expectedPeer: endpoint.deviceID,
                    clock: { MonotonicTime.now() })
                return (channel, host)
            } catch let error as TransportError where error.unreachable {
                unreachable.append(error.description)
            }
        }
        throw TransportError(unreachable.joined(separator: "; "), unreachable: true)
    }

    func close() {
        channel.close(promise: nil)
    }
}
