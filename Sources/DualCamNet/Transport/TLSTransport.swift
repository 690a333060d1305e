import DualCamProtocol
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

public typealias EnvelopeChannel = NIOAsyncChannel<ReceivedEnvelope, Dualcam_V1_Envelope>

public struct TransportError: Error, CustomStringConvertible {
    public let description: String
    /// True when no TCP connection came up at all, so another address of the same peer
    /// is worth trying; false once a peer answered.
    public let unreachable: Bool
    public init(_ description: String, unreachable: Bool = false) {
        self.description = description
        self.unreachable = unreachable
    }
}

/// Mutually authenticated TLS 1.3 between coordinator and agents. There is no plaintext
/// mode: every connection is TLS, both sides present certificates, both pin the other's
/// device ID.
public enum TLSTransport {
    /// A peer from which no complete frame arrived for this long is dropped (PROTOCOL.md
    /// §9), from the moment of connection, so also one stuck in the TLS handshake.
    public static let idleTimeout = TimeAmount.seconds(10)

    static func context(identity: DeviceIdentity) throws -> NIOSSLContext {
        var config = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try identity.sslCertificate())],
            privateKey: .privateKey(try identity.sslPrivateKey()))
        config.minimumTLSVersion = .tlsv13
        config.maximumTLSVersion = .tlsv13
        // Hostnames mean nothing here (agents are found by mDNS or typed as addresses);
        // the custom callback pins the device ID instead.
        config.certificateVerification = .noHostnameVerification
        // No certificate authority is ever consulted (the pinned device ID decides), so
        // none is loaded: the platform's store is not needed, and a node without one (no
        // ca-certificates, a minimal image) would otherwise fail to listen at all.
        config.trustRoots = .certificates([])
        config.shutdownTimeout = closeNotifyWait
        return try NIOSSLContext(configuration: config)
    }

    /// How long a closing side waits for the peer's TLS close_notify. Over a dead link no
    /// answer comes: with NIOSSL's default of 5 s, a connection dropped as idle after
    /// 10 s was only reported lost after 14-15 s (seen with a cable pulled between
    /// network namespaces). A live peer answers within a round trip.
    static let closeNotifyWait = TimeAmount.seconds(1)

    static func clientContext(identity: DeviceIdentity) throws -> NIOSSLContext {
        var config = TLSConfiguration.makeClientConfiguration()
        config.certificateChain = [.certificate(try identity.sslCertificate())]
        config.privateKey = .privateKey(try identity.sslPrivateKey())
        config.minimumTLSVersion = .tlsv13
        config.maximumTLSVersion = .tlsv13
        config.certificateVerification = .noHostnameVerification
        config.trustRoots = .certificates([])  // as the server's: pinned, no authority
        config.shutdownTimeout = closeNotifyWait
        return try NIOSSLContext(configuration: config)
    }

    static func addProtocolHandlers(to channel: Channel, side: WireStampHandler.Side,
                                    clock: @escaping @Sendable () -> Int64,
                                    idleTimeout: TimeAmount = TLSTransport.idleTimeout) throws {
        let ops = channel.pipeline.syncOperations
        let readInstant = SocketReadInstant()
        try ops.addHandler(SocketReadStamper(readInstant, clock: clock), position: .first)
        try ops.addHandler(ByteToMessageHandler(EnvelopeFrameDecoder()))
        try ops.addHandler(FrameIdleGuard(timeout: idleTimeout))
        try ops.addHandler(MessageToByteHandler(EnvelopeFrameEncoder()))
        try ops.addHandler(WireStampHandler(side: side, clock: clock, readInstant: readInstant))
    }

    /// Listens for coordinators. `onRefused` hears about every peer whose pin or
    /// certificate was rejected (its connection is closed before any message is read), and
    /// about connections closed at once because `admission` has no room for them.
    public static func listen(
        host: String, port: Int, identity: DeviceIdentity, policy: PeerPolicy,
        admission: ConnectionAdmission = ConnectionAdmission(),
        group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        clock: @escaping @Sendable () -> Int64,
        onRefused: @escaping @Sendable (String) -> Void
    ) async throws -> NIOAsyncChannel<AcceptedConnection, Never> {
        let sslContext = try context(identity: identity)
        return try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let (ticket, eviction) = admission.admit(channel.remoteAddress) { channel.close(promise: nil) }
                    channel.closeFuture.whenComplete { _ in ticket.release() }
                    if let eviction, eviction.worthLogging {
                        onRefused("closed the oldest unauthenticated connection from \(eviction.address) to make room: "
                            + (eviction.perAddressFull ? "\(admission.limits.perAddress) from one address"
                                                       : "\(admission.limits.total) in all")
                            + " were waiting to authenticate (\(eviction.count) closed so far)")
                    }
                    let verdict = VerdictBox()
                    let handler = NIOSSLServerHandler(context: sslContext) { chain, promise in
                        let result = policy.check(chain: chain)
                        verdict.set(result)
                        switch result {
                        case .refused(_, let reason):
                            onRefused(reason)
                            promise.succeed(.failed)
                        case .accepted:
                            // A paired coordinator no longer counts against the strangers' limits.
                            ticket.release()
                            promise.succeed(.certificateVerified)
                        case .pairing:
                            promise.succeed(.certificateVerified)
                        }
                    }
                    let handshake = channel.eventLoop.makePromise(of: Void.self)
                    try channel.pipeline.syncOperations.addHandler(ClientHelloWatch(ticket: ticket))
                    try channel.pipeline.syncOperations.addHandler(handler)
                    try channel.pipeline.syncOperations.addHandler(HandshakeWaiter(promise: handshake))
                    try addProtocolHandlers(to: channel, side: .agent, clock: clock)
                    return AcceptedConnection(channel: try EnvelopeChannel(wrappingChannelSynchronously: channel),
                                              verdict: verdict, handshake: handshake.futureResult)
                }
            }
    }

    /// Connects to an agent and completes the handshake, pinning `expectedPeer`.
    public static func connect(
        host: String, port: Int, identity: DeviceIdentity, expectedPeer: DeviceID,
        group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        clock: @escaping @Sendable () -> Int64,
        timeout: TimeAmount = .seconds(10)
    ) async throws -> EnvelopeChannel {
        try await connect(host: host, port: port, identity: identity, policy: PeerPolicy(trusted: [expectedPeer]),
                          group: group, clock: clock, timeout: timeout).channel
    }

    /// Connects to an agent that `policy` accepts (any paired agent, for `--agent
    /// HOST:PORT`) and returns the channel with the agent's device ID.
    public static func connect(
        host: String, port: Int, identity: DeviceIdentity, policy: PeerPolicy,
        group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        clock: @escaping @Sendable () -> Int64,
        timeout: TimeAmount = .seconds(10)
    ) async throws -> (channel: EnvelopeChannel, peer: DeviceID) {
        let sslContext = try clientContext(identity: identity)
        let verdict = VerdictBox()
        let handshake = group.next().makePromise(of: Void.self)
        let channel: EnvelopeChannel
        do {
            channel = try await ClientBootstrap(group: group)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connectTimeout(timeout)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handler = try NIOSSLClientHandler(context: sslContext, serverHostname: nil) { chain, promise in
                            let result = policy.check(chain: chain)
                            verdict.set(result)
                            if case .accepted = result { promise.succeed(.certificateVerified) } else { promise.succeed(.failed) }
                        }
                        try channel.pipeline.syncOperations.addHandler(handler)
                        try channel.pipeline.syncOperations.addHandler(HandshakeWaiter(promise: handshake))
                        try addProtocolHandlers(to: channel, side: .coordinator, clock: clock)
                        return try EnvelopeChannel(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            handshake.fail(error)
            throw TransportError(ConnectFailure.describe(error, host: host, port: port), unreachable: true)
        }
        do {
            try await handshake.futureResult.get()
        } catch {
            // An async channel must be finished through executeThenClose, never dropped.
            try? await channel.executeThenClose { _, _ in }
            if case .refused(_, let reason)? = verdict.verdict {
                throw TransportError("refused the agent at \(host):\(port): \(reason)")
            }
            let text = "\(error)".uppercased()
            if text.contains("ALERT") && (text.contains("CERTIFICATE") || text.contains("UNKNOWN_CA")) {
                throw TransportError("the agent at \(host):\(port) refused the TLS handshake (\(error)); "
                    + "it does not trust this coordinator's device ID \(identity.deviceID): pair them first")
            }
            throw TransportError("the agent at \(host):\(port) " + unansweredClose + " during the TLS handshake (\(error)): "
                + "it may be flooded with connections or restarting")
        }
        guard case .accepted(let peer)? = verdict.verdict else {
            try? await channel.executeThenClose { _, _ in }
            throw TransportError("the handshake with \(host):\(port) ended without a verdict on the agent's certificate")
        }
        return (channel, peer)
    }
}

extension TLSTransport {
    /// Turns what a coordinator sees when an agent rejects it into advice. In TLS 1.3 the
    /// client's handshake completes before the server has judged the client certificate,
    /// so an unpaired coordinator learns of its rejection only afterwards: as an alert on
    /// the first read, or as a connection closed before the agent said anything.
    public static func explain(_ error: Error?, receivedAnything: Bool, host: String, port: Int,
                               identity: DeviceIdentity) -> String {
        let text = error.map { "\($0)" } ?? "connection closed"
        let upper = text.uppercased()
        let alert = upper.contains("ALERT")
            && (upper.contains("CERTIFICATE") || upper.contains("UNKNOWN_CA") || upper.contains("HANDSHAKE"))
        if alert {
            return "the agent at \(host):\(port) refused this coordinator's certificate (\(text)): "
                + "it is not paired with this coordinator (device ID \(identity.deviceID)); pair them first"
        }
        if !receivedAnything {
            // No alert: the agent closed without judging us, as its admission does to the
            // oldest unauthenticated connections under a flood. Telling the operator to
            // pair an agent that is paired sent them the wrong way.
            return "the agent at \(host):\(port) " + unansweredClose + " (\(text)): either it is not paired with this coordinator "
                + "(device ID \(identity.deviceID); `dualcam-agent paired` on the node lists whom it trusts) or it was too busy to "
                + "answer (flooded with connections, or restarting)"
        }
        return "connection to the agent at \(host):\(port) failed: \(text)"
    }

    static let unansweredClose = "closed the connection before answering, without refusing this coordinator"

    /// Whether a reason from `explain` is a close without a refusal: worth trying again.
    public static func isUnansweredClose(_ reason: String) -> Bool { reason.contains(unansweredClose) }
}
