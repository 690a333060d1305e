import DualCamCore
import DualCamNet
import DualCamProtocol
import Foundation
import NIOConcurrencyHelpers
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

typealias CoordinatorConnection = ProtocolConnection<CoordinatorConnectionStateMachine>

/// One open connection to an agent, driven by the coordinator's protocol state machine:
/// it sends Hello by itself, answers clock pings, checks everything the agent sends, and
/// forwards the machine's typed events into the session's event stream.
final class AgentLink: RigLink {
    let index: Int
    let generation: Int
    let endpoint: AgentEndpoint
    private let connection: CoordinatorConnection
    private let channel: Channel
    /// Starts reading (and sending Hello); run once, by `start`.
    private let reader = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)
    /// The agent's clock lane (§20), open from its HelloAck to the connection's end.
    private let lane = NIOLockedValueBox<ClockLaneServer?>(nil)

    private init(index: Int, generation: Int, endpoint: AgentEndpoint, connection: CoordinatorConnection, channel: Channel) {
        self.index = index
        self.generation = generation
        self.endpoint = endpoint
        self.connection = connection
        self.channel = channel
    }

    static func open(index: Int, generation: Int = 0, endpoint: AgentEndpoint, identity: DeviceIdentity,
                     events: AsyncStream<RigEvent>.Continuation, previews: PreviewHub? = nil,
                     clock source: any TimeSource) async throws -> AgentLink {
        let (channel, reached) = try await connectAny(endpoint, identity: identity)
        let clock: @Sendable () -> Int64 = { source.now }
        let machine = CoordinatorConnectionStateMachine(configuration: .init(hello: TakeRecorder.hello()), now: clock())
        let connection = CoordinatorConnection(machine: machine, clock: clock)
        let link = AgentLink(index: index, generation: generation, endpoint: endpoint, connection: connection,
                             channel: channel.channel)
        // Nothing is read until the rig holds the link (`start`): an agent's HelloAck
        // handled first would have the take answer it (Resume, Stop) on no link at all,
        // and those were lost (an agent recorded on after a resumed take was stopped).
        link.reader.withLockedValue { $0 = { Task {
            let heard = NIOLockedValueBox(false)
            var failure: Error?
            var closedBy: ProtocolError?
            do {
                closedBy = try await connection.run(channel) { delivery in
                    heard.withLockedValue { $0 = true }
                    if case .previewFrame(let frame) = delivery.event {
                        previews?.receive(camera: index, frame)
                        return
                    }
                    if case .connected(let ack) = delivery.event { link.offerClockLane(to: ack) }
                    events.yield(.event(agent: index, generation: generation, delivery))
                }
            } catch {
                failure = error
            }
            link.lane.withLockedValue { $0?.stop(); $0 = nil }
            let receivedAnything = heard.withLockedValue { $0 }
            let reason: String?
            if let closedBy {
                reason = closedBy.description
            } else if failure == nil && receivedAnything {
                reason = nil
            } else {
                reason = TLSTransport.explain(failure, receivedAnything: receivedAnything, host: reached,
                                              port: endpoint.port, identity: identity)
            }
            events.yield(.closed(agent: index, generation: generation, reason))
        } } }
        return link
    }

    /// Opens a clock lane for an agent that speaks 1.7 and tells it where (§20), on the
    /// connection's own addresses, IPv6 link-local ones included. Where no lane can be
    /// opened (a socket that fails, DUALCAM_CLOCK_LANE=off for a comparison), the agent's
    /// pings go on over the connection, as before 1.7.
    private func offerClockLane(to ack: Dualcam_V1_HelloAck) {
        guard ack.version.minor >= 7, ProcessInfo.processInfo.environment["DUALCAM_CLOCK_LANE"] != "off",
              let local = channel.localAddress, let localIP = local.ipAddress,
              let peerIP = channel.remoteAddress?.ipAddress else { return }
        do {
            // A link-local connection's two ends are on one interface: the local one's.
            let server = try ClockLaneServer(localIP: localIP, peerIP: peerIP, scopeID: local.ipv6ScopeID) { ago in
                MonotonicTime.now() - ago
            }
            lane.withLockedValue { $0?.stop(); $0 = server }
            try send(.clockLaneOffer(server.terms.offer))
        } catch {
            lane.withLockedValue { $0?.stop(); $0 = nil }
        }
    }

    /// Starts the connection: Hello out, the agent's messages in. Once; later calls do nothing.
    func start() {
        reader.withLockedValue { r -> (@Sendable () -> Void)? in defer { r = nil }; return r }?()
    }

    /// Sends `body` if the protocol allows it in the connection's phase now.
    func send(_ body: Dualcam_V1_Envelope.OneOf_Body) throws(ProtocolError) {
        try connection.send(body)
    }

    /// Where the connection stands (handshake, or the session phase).
    var state: CoordinatorConnectionStateMachine.State { connection.state }

    /// Tries the endpoint's addresses in order until one answers. A peer that answered
    /// and then failed (a refused pin, a bad certificate) ends the attempt there: another
    /// address would reach the same agent. With a `deadline`, each address gets what is
    /// left of it, and none is tried once it has passed.
    static func connectAny(_ endpoint: AgentEndpoint, identity: DeviceIdentity,
                           deadline: Date? = nil) async throws -> (EnvelopeChannel, String) {
        var unreachable: [String] = []
        for host in endpoint.hosts {
            let left = deadline.map { max($0.timeIntervalSinceNow, 0.1) }
            do {
                let channel = try await TLSTransport.connect(
                    host: host, port: endpoint.port, identity: identity, expectedPeer: endpoint.deviceID,
                    clock: { MonotonicTime.now() }, timeout: left.map { .milliseconds(Int64($0 * 1000)) } ?? .seconds(10))
                return (channel, host)
            } catch let error as TransportError where error.unreachable {
                unreachable.append(error.description)
                if let deadline, Date() >= deadline { break }
            }
        }
        throw TransportError(unreachable.joined(separator: "; "), unreachable: true)
    }

    /// Ends the connection in good order.
    func finish() {
        connection.finish()
    }

    func close() {
        channel.close(promise: nil)
    }
}
