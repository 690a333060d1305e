import DualCamCore
import DualCamNet
import DualCamProtocol
import Foundation
import Logging
import NIOCore

/// Serves coordinators: accepts pinned TLS connections one at a time and runs each
/// through `CoordinatorLink`.
public struct AgentServer: Sendable {
    public let options: AgentOptions
    public let identity: DeviceIdentity
    let logger: Logger
    /// Outlives every connection: a recording goes on while its coordinator is away.
    private let registry = RecordingRegistry()
    /// Steers a Pi camera piped from `rpicam-vid --sync client` (`--pi-sync-port`).
    private let piSync: PiSyncSender?

    public init(options: AgentOptions, identity: DeviceIdentity, logger: Logger) {
        self.options = options
        self.identity = identity
        self.logger = logger
        piSync = options.defaults.piSyncPort.map { PiSyncSender(rate: options.defaults.rate, port: $0, logger: logger) }
    }

    /// For SIGTERM: ends every recording at a segment boundary and waits for the last
    /// segment to be closed and spooled; returns how many did not finish in time.
    public static func finishRecordings(timeoutSeconds: Double) async -> Int {
        await ActiveRecordings.stopAll(timeoutSeconds: timeoutSeconds)
    }

    /// Listens and serves until a coordinator sends Shutdown (when allowed). `onListening`
    /// receives the bound port (useful with port 0).

    public func run(onListening: @Sendable (Int) -> Void) async throws {
        let clock = AgentClock(simulatedError: options.simulatedError, estimateStep: options.estimateStep)
        let logger = self.logger
        // The camera between takes (the preview), shared by the connections one after another.
        let camera = IdleCamera(settings: options.defaults, clock: clock, logger: logger)
        // Checked before the first connection can ask, so the log says at start what a
        // take would otherwise find out (issue 36).
        let watch = SourceWatch(source: options.defaults.source, logger: logger)
        watch.checkNow()
        let watching = Task { await watch.run() }
        defer { watching.cancel() }
        let steering = piSync.map { sender in Task { await sender.run(clock: clock) } }
        defer { steering?.cancel() }
        CameraControlsService(source: options.defaults.source, stateDirectory: options.stateDirectory,
                              now: { clock.localNow() }, logger: logger).install()
        let paired = PairedDevices(stateDirectory: options.stateDirectory)
        let extra = options.trusted
        let window = PairingWindow()
        let policy = PeerPolicy(isTrusted: { extra.contains($0) || paired.trusted().contains($0) },
                                pairingOpen: { window.isOpen })
        // Strangers (handshakes, refused peers, pairing) get a bounded share of the open
        // files; a paired coordinator is never counted against it.
        let admission = ConnectionAdmission()
        let listen = { (host: String) in
            do {
                return try await TLSTransport.listen(
                    host: host, port: options.port, identity: identity,
                    policy: policy, admission: admission, clock: { clock.localNow() },
                    onRefused: { reason in logger.warning("refused a coordinator: \(reason)") })
            } catch {
                guard let words = ListenFailure.describe(error, host: host, port: options.port, option: "--port") else { throw error }
                throw TransportError(words)
            }
        }
        let server: NIOAsyncChannel<AcceptedConnection, Never>
        do {
            server = try await listen(options.listenHost)
        } catch where options.listenHost == "::" {
            // mDNS may hand the coordinator either family, so the default takes both; a
            // host with IPv6 disabled still gets a working agent on IPv4.
            logger.notice("cannot listen on IPv6 (\(error)); listening on IPv4 only")
            server = try await listen("0.0.0.0")
        }
        guard let port = server.channel.localAddress?.port else { throw TransportError("listening socket has no port") }
        // Kept alive (announced) for as long as the server runs.
        let publisher = announce(port: port, sourceProblem: watch.problem)
        defer { withExtendedLifetime(publisher) {} }
        let announcing = watch.listen { problem in publisher?.update(sourceProblem: problem) }
        defer { watch.unlisten(announcing) }
        let controlSocket: ControlSocket.Listener?
        do {
            controlSocket = try await ControlSocket.bind(stateDirectory: options.stateDirectory)
        } catch {
            controlSocket = nil
            logger.warning("no control socket, so `dualcam-agent pair` cannot reach this agent: \(error)")
        }
        let control = Task {
            guard let controlSocket else { return }
            do {
                try await ControlSocket.serve(controlSocket, window: window, logger: logger)
            } catch {
                logger.warning("control socket closed: \(error)")
            }
        }
        defer { control.cancel() }
        // The TXT record says when the window is open, so `dualcam-coordinator pair` can
        // offer just the agents that can pair now.
        let windowEvents = window.events()
        let advertiser = Task {
            for await event in windowEvents {
                switch event {
                case .opened: publisher?.update(pairingOpen: true)
                case .closed: publisher?.update(pairingOpen: false)
                default: break
                }
            }
        }
        defer { advertiser.cancel() }
        openFirstWindowIfUnpaired(window, paired: paired)
        onListening(port)
        let pairing = PairingConnection(options: options, identity: identity, window: window, paired: paired, logger: logger)
        let gate = SessionGate()
        // Cancelling the task that runs the agent closes the listener; the sessions under
        // way end with their connections.
        let listener = server.channel
        try await withTaskCancellationHandler {
            try await serve(server, pairing: pairing, clock: clock, camera: camera, watch: watch, gate: gate)
        } onCancel: {
            listener.close(promise: nil)
        }
    }

    private func serve(_ server: NIOAsyncChannel<AcceptedConnection, Never>, pairing: PairingConnection,
                       clock: AgentClock, camera: IdleCamera, watch: SourceWatch, gate: SessionGate) async throws {
        let logger = self.logger
        let sessions = SessionChannels()
        try await server.executeThenClose { connections in
            try await withThrowingDiscardingTaskGroup { group in
                for try await connection in connections {
                    // Each connection in its own task, so a slow handshake or a pairing in
                    // progress never holds up a paired coordinator.
                    group.addTask {
                        switch await connection.peer() {
                        case .pairing(let coordinator)?:
                            do {
                                try await pairing.serve(connection.channel, coordinator: coordinator)
                            } catch {
                                logger.warning("pairing connection ended: \(error)")
                            }
                        case .accepted(let coordinator)?:
                            let held = HeldConnection(channel: connection.channel.channel)
                            switch sessions.claim(coordinator, with: held, now: clock.localNow()) {
                            case .busy(let other, let take):
                                // One camera, one coordinator: a second one is told at once who
                                // holds the agent, instead of waiting silently behind it.
                                let holder = describe(other)
                                let doing = take.map { "recording take \($0) for \(holder)" } ?? "serving \(holder)"
                                logger.notice("coordinator \(coordinator) turned away: \(options.name) is \(doing)")
                                await turnAway(connection.channel, "\(options.name) is \(doing); stop that coordinator (or close its "
                                    + "rig) and try again")
                                return
                            case .inTake(let take):
                                let holder = describe(coordinator)
                                logger.notice("a second connection of \(holder) turned away: its other connection drives take \(take)")
                                await turnAway(connection.channel, "\(options.name) is recording take \(take) for another run of \(holder) "
                                    + "(another dualcam-coordinator with this identity); one take at a time: stop that one first")
                                return
                            case .claimed(let stale?):
                                // The same coordinator connecting again while its old connection is
                                // silent means that one is stale (a pulled cable it has not noticed
                                // yet, a restarted laptop): the new one replaces it instead of
                                // waiting behind it.
                                logger.notice("coordinator \(coordinator) connected again: its previous connection is closed")
                                stale.close(promise: nil)
                            case .claimed(nil):
                                break
                            }
                            defer { sessions.remove(coordinator, held) }
                            await gate.acquire()
                            let shutdown = await serveSession(connection.channel, held: held, clock: clock, camera: camera, watch: watch,
                                                              gate: gate)
                            await gate.release()
                            if shutdown { server.channel.close(promise: nil) }
                        case .refused?, nil:
                            // Refused peers were logged by the verifier; nothing they sent is read.
                            try? await connection.channel.executeThenClose { _, _ in }
                        }
                    }
                }
            }
        }
    }

    /// Refuses a coordinator connection with a fatal ERROR_BUSY that says why. The refusal
    /// answers the newcomer's Hello: closing before it has written would fail its Hello,
    /// and the refusal could be lost with it. A newcomer that says nothing is dropped by
    /// the idle guard (PROTOCOL.md §9).
    private func turnAway(_ channel: EnvelopeChannel, _ sentence: String) async {
        try? await channel.executeThenClose { inbound, outbound in
            var hello = inbound.makeAsyncIterator()
            _ = try await hello.next()
            try await EnvelopeWriter(outbound).sendError(.errorBusy, sentence, fatal: true)
        }
    }

    /// A coordinator as the person knows it: its paired name and ID.
    private func describe(_ coordinator: DeviceID) -> String {
        let entry = try? PairedDevices(stateDirectory: options.stateDirectory).entries().first { $0.deviceID == coordinator.description }
        return entry.map { "coordinator \"\($0.name)\" (\(coordinator))" } ?? "coordinator \(coordinator)"
    }

    /// Runs one paired coordinator's session; true when it ended the agent.
    private func serveSession(_ channel: EnvelopeChannel, held: HeldConnection, clock: AgentClock, camera: IdleCamera,
                              watch: SourceWatch, gate: SessionGate) async -> Bool {
        // Every accepted channel must be finished, also those queued behind a shutdown.
        if await gate.stopping {
            try? await channel.executeThenClose { _, _ in }
            return false
        }
        let session = CoordinatorLink(options: options, clock: clock, registry: registry,
                                      prepared: PreparedSessions(camera: camera), held: held, watch: watch, piSync: piSync,
                                      logger: logger)
        do {
            let outcome = try await session.serve(channel)
            guard outcome == .shutdown && options.allowRemoteShutdown else { return false }
            logger.info("shutdown requested by the coordinator")
            await gate.stop()
            return true
        } catch {
            logger.error("coordinator connection ended: \(error)")
            return false
        }
    }

    /// A fresh install pairs without a login on the node: the window opens by itself while
    /// no coordinator is paired, and its code goes to the journal (readable by the node's
    /// administrators only). It allows as few wrong codes as any other window.
    private func openFirstWindowIfUnpaired(_ window: PairingWindow, paired: PairedDevices) {
        guard options.firstPairingWindowSeconds > 0, options.trusted.isEmpty, paired.trusted().isEmpty else { return }
        let code = window.open(seconds: options.firstPairingWindowSeconds)
        logger.notice("""
            no coordinator is paired yet: pairing window open for \(options.firstPairingWindowSeconds) s with code \(code); \
            run `dualcam-coordinator pair` on the coordinator and type this code there \
            (`dualcam-agent pair` opens a new window with a new code)
            """)
    }

    /// Announces the agent; without Avahi it stays reachable by address, so a failure is
    /// a warning that says how to fix it, not an error.
    private func announce(port: Int, sourceProblem: String?) -> AgentPublisher? {
        guard options.announce else { return nil }
        var advertisement = AgentAdvertisement(
            deviceID: identity.deviceID, name: options.name, role: options.role.name,
            protocolMajor: WireProtocol.major, protocolMinor: WireProtocol.minor)
        advertisement.sourceProblem = sourceProblem
        do {
            let publisher = try AgentPublisher(advertisement: advertisement, port: port,
                                               interfaceName: options.announceInterface,
                                               family: AgentPublisher.Family(listeningOn: options.listenHost), logger: logger)
            logger.info("announced as \"\(publisher.publishedName)\" (\(AgentAdvertisement.serviceType), port \(port))")
            return publisher
        } catch {
            logger.warning("not announced over mDNS: \(error)")
            return nil
        }
    }
}
