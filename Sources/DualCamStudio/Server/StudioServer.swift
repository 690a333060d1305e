import DualCamCoordinator
import DualCamCore
import Foundation
import DualCamNet
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The studio: serves the page (embedded in the binary) and its API, a client of the
/// rig's typed API like the terminal. Listens on loopback unless told otherwise; beyond
/// loopback every request needs the session that the printed one-time token gives.
public final class Studio: Sendable {
    public let host: String
    public let port: Int
    public let access: StudioAccess
    /// Served over HTTPS with the coordinator's own certificate: a secure context, so a
    /// tablet's browser gets WebCodecs (H.264) instead of the JPEG fallback.
    public let https: Bool
    let rig: Rig
    /// The studio's time: rate limits, the state's pacing (the rig's clock).
    let clock: any TimeSource
    let logger: Logger
    /// What one browser or one stranger may cost (issue 36).
    public let limits: StudioLimits
    /// Strangers' connections: those that made no admitted request yet.
    let strangers: ConnectionAdmission
    let guesses: TokenGuesses
    let plan: NIOLockedValueBox<StudioPlan>
    private let boundPort = NIOLockedValueBox<Int?>(nil)
    /// Told the link a new browser needs: once listening, and after each token is spent.
    private let announce: @Sendable (_ url: String) -> Void
    /// A signal each time the plan changes (the rig's snapshots do not carry it).
    private let planWatchers = Subscribers<Void>()
    /// Every camera a viewer changed, as its panel now is: sent to every viewer (the
    /// rig's snapshots do not carry the cameras' controls).
    let cameraChanges = Subscribers<CameraPanelListing>()
    /// A finished take's warnings and length, read from its manifest.
    let takeManifest = TakeManifest()
    /// The recompose the library runs (one at a time), for its progress.
    let recomposeJob = NIOLockedValueBox<RecomposeJob?>(nil)
    /// The import "Add recording" runs (one at a time), for its stage and result.
    let importJob = NIOLockedValueBox<ImportJob?>(nil)

    func planChanges() -> AsyncStream<Void> {
        planWatchers.add(bufferingNewest: 1)
    }

    func planChanged() {
        planWatchers.yield(())
    }

    public init(rig: Rig, plan: TakePlan, host: String = "127.0.0.1", port: Int = 8080, https: Bool = false,
                limits: StudioLimits = StudioLimits(), logger: Logger,
                announce: @escaping @Sendable (_ url: String) -> Void = { _ in }) {
        self.rig = rig
        clock = rig.clock
        self.limits = limits
        strangers = ConnectionAdmission(limits: .init(perAddress: limits.strangersPerAddress, total: limits.strangers))
        guesses = TokenGuesses(burst: limits.guessBurst, intervalSeconds: limits.guessIntervalSeconds, clock: rig.clock)
        self.https = https
        self.announce = announce
        self.host = host
        self.port = port
        self.logger = logger
        self.plan = NIOLockedValueBox(StudioPlan(base: plan))
        access = StudioAccess(requiresToken: !Self.isLoopback(host))
    }

    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The address to open, with the one-time token when one is needed.
    public func url(port: Int) -> String {
        let shown = host == "0.0.0.0" || host == "::" ? (Self.someAddress() ?? "localhost") : host
        let hostPart = shown.contains(":") ? "[\(shown)]" : shown
        return "\(https ? "https" : "http")://\(hostPart):\(port)/" + (access.token.map { "?token=\($0)" } ?? "")
    }

    /// Runs until cancelled. `onListening` gets the port bound (useful with port 0).
    public func run(onListening: @escaping @Sendable (Int) -> Void) async throws {
        let router = Router(context: StudioContext.self)
        router.middlewares.add(AccessMiddleware(access: access, guesses: guesses, logger: logger))
        routes(router)
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: .nanoseconds(Int64(limits.idleSeconds * 1e9))), ws: .init(maxFrameSize: 1 << 16))
        let app = Application(
            router: router,
            server: .guarded(webSocketResponder: router.buildResponder(), configuration: configuration,
                             tls: https ? try rig.identity.browserTLSConfiguration() : nil, admission: strangers,
                             strangerSeconds: limits.strangerSeconds, logger: logger),
            configuration: .init(address: .hostname(host, port: port), serverName: "DualCam studio"),
            onServerRunning: { [self] channel in
                let port = channel.localAddress?.port ?? 0
                boundPort.withLockedValue { $0 = port }
                onListening(port)
                announce(url(port: port))
            },
            logger: logger)
        let carry = Task { await carryLayoutBetweenTakes() }
        defer { carry.cancel() }
        do {
            try await app.runService(gracefulShutdownSignals: [])
        } catch {
            guard let words = ListenFailure.describe(error, host: host, port: port, option: "--listen") else { throw error }
            throw StudioListenError(description: words)
        }
    }

    private func routes(_ router: Router<StudioContext>) {
        router.get("/") { request, _ in try self.page(request) }
        router.get("/static/{name}") { _, context in
            try WebFileResponse.file(context.parameters.require("name"))
        }
        router.get("/api/state") { _, _ in
            try await WebFileResponse.json(self.state())
        }
        router.post("/api/command") { request, context in
            try await self.command(request, context: context)
        }
        router.get("/files/{session}/{name}") { _, context in
            try await self.file(session: context.parameters.require("session"), name: context.parameters.require("name"),
                                context: context)
        }
        libraryRoutes(router)
        cameraRoutes(router)
        router.ws("/ws") { request, _ in
            let host = request.head.authority
            guard StudioAccess.originMatches(origin: request.headers[.origin], host: host) else {
                return .dontUpgrade
            }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            try await ViewerConnection(studio: self, outbound: outbound, logger: self.logger,
                                       peer: context.requestContext.peer).run(inbound)
        }
    }

    /// `/?token=…` trades the one-time token for a session cookie and sends the browser
    /// to the bare page, so the token does not linger in its history.
    private func page(_ request: Request) throws -> Response {
        if let token = request.uri.queryParameters.get("token") {
            guard let session = access.exchange(token: token) else {
                throw StudioHTTPError(401, "this studio link was used already or is wrong; ask the coordinator's terminal for the current one")
            }
            var response = Response(status: .seeOther, headers: [.location: "/"])
            response.setCookie(try Cookie.validated(name: StudioAccess.cookieName, value: session, path: "/",
                                                    secure: https, httpOnly: true, sameSite: .strict))
            logger.notice("studio: a browser joined with the one-time link")
            announce(url(port: boundPort.withLockedValue { $0 } ?? port))
            return response
        }
        return try WebFileResponse.file("index.html")
    }

    func state() async -> StudioState {
        let snapshot = await rig.snapshot()
        let hub = rig.previews
        var state = StudioState(snapshot: snapshot, plan: plan.withLockedValue { $0 }, csrf: access.csrf,
                                codec: { hub.codec(camera: $0) }, preview: hub.settings)
        if let take = snapshot.take, let files = take.files {
            state.take?.warnings = takeManifest.warnings(of: take.warnings, manifest: files.manifestFile)
            if take.isOver, take.elapsedSeconds == 0, let length = takeManifest.facts(files.manifestFile).durationSeconds {
                state.take?.elapsedSeconds = length
            }
        }
        return state
    }

    /// A POST body's most: every body the page sends is a small JSON object.
    static let maxBody = 16 * 1024

    /// A POST's JSON body, once its CSRF header is checked (403 without it): 400, naming
    /// the contract, for one that is not the JSON `T` expects, 413 for one over `maxBody`;
    /// `empty` stands for no body.
    func decodedBody<T: Decodable>(_ request: Request, as type: T.Type, what: String = "request", empty: T? = nil) async throws -> T {
        guard access.checksCSRF(request.headers[values: .init(StudioAccess.csrfHeader)!].first) else {
            throw StudioHTTPError(403, "missing or wrong \(StudioAccess.csrfHeader) header; reload the page")
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maxBody)
        } catch is NIOTooManyBytesError {
            throw StudioHTTPError(413, "the \(what) is over \(Self.maxBody / 1024) KiB; the studio's requests are small JSON "
                + "objects (docs/STUDIO.md)")
        }
        if body.readableBytes == 0, let empty { return empty }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: body))
        } catch let refusal as CommandRequestError {
            // Well-formed, but a name it does not know: said in a person's words.
            throw StudioHTTPError(400, refusal.description)
        } catch {
            throw StudioHTTPError(400, "the \(what) is not JSON of the form docs/STUDIO.md gives: \(error)")
        }
    }

    private func command(_ request: Request, context: StudioContext) async throws -> Response {
        let command = try await decodedBody(request, as: CommandRequest.self, what: "command")
        do {
            try await perform(command)
        } catch let error as StudioError {
            throw StudioHTTPError(error.status, error.message)
        } catch {
            // The rig refused it (RigError): nothing changed.
            throw StudioHTTPError(409, "\(error)")
        }
        return try WebFileResponse.json(["ok": true])
    }

    /// A command from the page, decoded as the terminal's are (`CommandRequest.rigCommand`):
    /// during a take the rig carries it out; before one, it changes the plan the next take
    /// starts with.
    private func perform(_ request: CommandRequest) async throws {
        let snapshot = await rig.snapshot()
        let live = snapshot.take.flatMap { $0.isOver ? nil : $0 }
        switch request.command {
        case .start where live.map { !$0.liveOnly } ?? false: throw StudioError.conflict("a take is under way; stop it first")
        case .stop where live == nil: throw StudioError.conflict("nothing is recording")
        default: break
        }
        let plan = plan.withLockedValue { $0 }
        let context = CommandContext(plan: plan.base,
                                     layout: live.flatMap { try? LayoutSpec(parsing: $0.layout) } ?? plan.layout,
                                     filter: live?.filter ?? FilterSetting(plan.base.filter),
                                     stopReason: "stopped from the studio")
        let command: RigCommand
        do {
            command = try request.rigCommand(context)
        } catch {
            throw StudioError.bad(error.description)
        }
        switch command {
        case .start(let next):
            try await rig.perform(command)
            self.plan.withLockedValue { $0.base = next }
            planChanged()
        case _ where live != nil, .stop:
            try await rig.perform(command)
        case .live(true):
            // Go live with no take: live without recording, with the plan's settings.
            try await rig.perform(.goLive(plan.base))
        default:
            let cameras = snapshot.agents.filter { $0.connection == .connected }.count
            let next = try plan.base.applying(command, cameras: cameras)
            self.plan.withLockedValue { $0.base = next }
            planChanged()
        }
    }

    /// Only the files of a finished take named in the state, by their plain names.
    private func file(session: String, name: String, context: StudioContext) async throws -> Response {
        guard let files = await rig.snapshot().take?.files,
              URL(fileURLWithPath: files.sessionDirectory).lastPathComponent == session else {
            throw StudioHTTPError(404, "no finished take \(session) here")
        }
        let listed = files.perCameraFiles + files.soundFiles + [files.combinedFile, files.manifestFile]
        guard let path = listed.first(where: { URL(fileURLWithPath: $0).lastPathComponent == name }) else {
            throw StudioHTTPError(404, "\(name) is not a file of take \(session)")
        }
        let body = try await FileIO().loadFile(path: path, context: context)
        let type = name.hasSuffix(".mp4") ? "video/mp4" : name.hasSuffix(".wav") ? "audio/wav" : "application/json"
        return Response(status: .ok, headers: [.contentType: type], body: body)
    }

    /// An address a tablet on the same network can reach: the first IPv4 address of an
    /// interface that is up and not loopback (mDNS names do not resolve on every tablet).
    private static func someAddress() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            let flags = Int32(current.pointee.ifa_flags)
            guard let address = current.pointee.ifa_addr, address.pointee.sa_family == UInt16(AF_INET),
                  flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0 else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(address, socklen_t(MemoryLayout<sockaddr_in>.size), &host, socklen_t(host.count), nil, 0,
                           NI_NUMERICHOST) == 0 {
                return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        return nil
    }
}

/// The studio could not listen where it was told (the port in use, an address not this
/// machine's), in the words `ListenFailure` gives.
public struct StudioListenError: Error, CustomStringConvertible {
    public let description: String
}
