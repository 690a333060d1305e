import DualCamCore
import DualCamNet
import DualCamProtocol
import Foundation
import Logging
import NIOCore

/// Serves coordinators: accepts pinned TLS connections one at a time and runs each
/// through `CoordinatorSession`.
public struct AgentServer: Sendable {
    public let options: AgentOptions
    public let identity: DeviceIdentity
    let logger: Logger

    public init(options: AgentOptions, identity: DeviceIdentity, logger: Logger) {
        self.options = options
        self.identity = identity
        self.logger = logger
    }

    /// Listens and serves until a coordinator sends Shutdown (when allowed). `onListening`
    /// receives the bound port (useful with port 0).
    public func run(onListening: @Sendable (Int) -> Void) async throws {
        let clock = AgentClock(simulatedError: options.simulatedError)
        let logger = self.logger
        let server = try await TLSTransport.listen(
            host: options.listenHost, port: options.port, identity: identity,
            policy: PeerPolicy(trusted: options.trusted), clock: { clock.localNow() },
            onRefused: { reason in logger.warning("refused a coordinator: \(reason)") })
        guard let port = server.channel.localAddress?.port else { throw TransportError("listening socket has no port") }
        // Kept alive (announced) for as long as the server runs.
        let publisher = announce(port: port)
        defer { withExtendedLifetime(publisher) {} }
        onListening(port)
        try await server.executeThenClose { connections in
            var stopping = false
            for try await connection in connections {
                // Every accepted channel must be finished, also those queued behind a
                // shutdown: the listener is closed and the queue drained.
                if stopping {
                    try? await connection.executeThenClose { _, _ in }
                    continue
                }
                let session = CoordinatorSession(options: options, clock: clock, logger: logger)
                let outcome: CoordinatorSession.Outcome
                do {
                    outcome = try await session.serve(connection)
                } catch {
                    logger.error("coordinator connection ended: \(error)")
                    continue
                }
                if outcome == .shutdown && options.allowRemoteShutdown {
                    logger.info("shutdown requested by the coordinator")
                    stopping = true
                    server.channel.close(promise: nil)
                }
            }
        }
    }

    /// Announces the agent; without Avahi it stays reachable by address, so a failure is
    /// a warning that says how to fix it, not an error.
    private func announce(port: Int) -> AgentPublisher? {
        guard options.announce else { return nil }
        let advertisement = AgentAdvertisement(
            deviceID: identity.deviceID, name: options.name, role: options.role.name,
            protocolMajor: WireProtocol.major, protocolMinor: WireProtocol.minor)
        do {
            let publisher = try AgentPublisher(advertisement: advertisement, port: port,
                                               interfaceName: options.announceInterface, logger: logger)
            logger.info("announced as \"\(publisher.publishedName)\" (\(AgentAdvertisement.serviceType), port \(port))")
            return publisher
        } catch {
            logger.warning("not announced over mDNS: \(error)")
            return nil
        }
    }
}
