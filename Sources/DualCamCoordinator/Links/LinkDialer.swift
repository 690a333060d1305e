import DualCamCore
import DualCamNet
import DualCamProtocol
import NIOConcurrencyHelpers

/// What the rig and its takes need of one open connection to an agent. `AgentLink` is the
/// one over mutually authenticated TLS; tests give the rig agents in their own process
/// (`InProcessRig`), so that a rig's whole life runs on simulated time.
protocol RigLink: AnyObject, Sendable {
    /// Which opening of the agent's connection this is: events of older ones are stale.
    var generation: Int { get }
    /// Where the connection stands (handshake, or the session phase).
    var state: CoordinatorConnectionStateMachine.State { get }
    /// Hello out, the agent's messages in: once the rig holds the link.
    func start()
    /// Sends `body` if the protocol allows it in the connection's phase now.
    func send(_ body: Dualcam_V1_Envelope.OneOf_Body) throws(ProtocolError)
    /// Ends the connection in good order.
    func finish()
    /// Drops it.
    func close()
}

/// How the rig reaches its agents: opens a link to one, and hears where one is announced
/// while it is lost. The events of every link it opens go into `events`.
protocol LinkDialer: Sendable {
    func open(index: Int, generation: Int, endpoint: AgentEndpoint, events: AsyncStream<RigEvent>.Continuation,
              previews: PreviewHub, clock: any TimeSource) async throws -> any RigLink
    /// Every announcement of the agent `id` until cancelled, newest kept in `announced`.
    func watchAnnouncements(of id: DeviceID, into announced: NIOLockedValueBox<AgentEndpoint?>) async
}

/// The agents on the network: TLS to their endpoints, mDNS for where they turn up.
struct NetworkDialer: LinkDialer {
    let identity: DeviceIdentity

    func open(index: Int, generation: Int, endpoint: AgentEndpoint, events: AsyncStream<RigEvent>.Continuation,
              previews: PreviewHub, clock: any TimeSource) async throws -> any RigLink {
        try await AgentLink.open(index: index, generation: generation, endpoint: endpoint, identity: identity,
                                 events: events, previews: previews, clock: clock)
    }

    func watchAnnouncements(of id: DeviceID, into announced: NIOLockedValueBox<AgentEndpoint?>) async {
        guard let (browser, stream) = try? AgentBrowser.browse() else { return }
        await withTaskCancellationHandler {
            for await event in stream {
                guard case .updated(let agent) = event, agent.advertisement.deviceID == id, !agent.addresses.isEmpty else { continue }
                announced.withLockedValue { $0 = AgentEndpoint(hosts: agent.addresses, port: agent.port, deviceID: id) }
            }
        } onCancel: {
            browser.finish()
        }
    }
}
