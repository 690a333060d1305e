import DualCamNet
import DualCamProtocol
import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// Frees the agents' spooled copies of a session (the rig's tests count the requests).
protocol SpoolForgetting: Sendable {
    func forget(sessionID: String, agents: [SessionRecord.Agent]) async -> [AgentCopy]
}

/// Asks the agents of a deleted session to remove their spooled copies of it
/// (ForgetSession, PROTOCOL.md §17), each on a short connection of its own that ends with
/// the answer or after `timeoutSeconds`, all at once: an agent that is down costs a delete
/// a few seconds at most, and never the delete itself.
public struct SpoolForgetter: SpoolForgetting {
    public let identity: DeviceIdentity
    public let timeoutSeconds: Double

    public init(identity: DeviceIdentity, timeoutSeconds: Double = 5) {
        self.identity = identity
        self.timeoutSeconds = timeoutSeconds
    }

    /// Each agent's answer, in the order of `agents`.
    public func forget(sessionID: String, agents: [SessionRecord.Agent]) async -> [AgentCopy] {
        await withTaskGroup(of: (Int, AgentCopy).self) { group in
            for (i, agent) in agents.enumerated() {
                group.addTask { (i, await self.ask(agent, sessionID: sessionID)) }
            }
            var copies: [(Int, AgentCopy)] = []
            for await copy in group { copies.append(copy) }
            return copies.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    private func ask(_ agent: SessionRecord.Agent, sessionID: String) async -> AgentCopy {
        var copy = AgentCopy(agent: agent, outcome: .unanswered(""))
        guard let deviceID = DeviceID(parsing: agent.deviceID), !agent.hosts.isEmpty, (1...65_535).contains(agent.port) else {
            copy.outcome = .unanswered("the session's record holds no usable address or device ID for it")
            return copy
        }
        let endpoint = AgentEndpoint(hosts: agent.hosts, port: agent.port, deviceID: deviceID)
        let exchange = ForgetExchange(sessionID: sessionID, endpoint: endpoint, identity: identity)
        let timer = Task { [timeoutSeconds] in
            try await Task.sleep(nanoseconds: UInt64(timeoutSeconds * 1e9))
            exchange.giveUp("no answer within \(Int(timeoutSeconds)) s")
        }
        defer { timer.cancel() }
        copy.outcome = await exchange.run(deadline: Date().addingTimeInterval(timeoutSeconds))
        return copy
    }
}

/// One ForgetSession exchange: connect, Hello, ForgetSession, SessionForgotten, close. The
/// coordinator's state machine checks every message, as on a recording's connection.
private final class ForgetExchange: Sendable {
    let sessionID: String
    let endpoint: AgentEndpoint
    let identity: DeviceIdentity
    private let outcome = NIOLockedValueBox<AgentCopy.Outcome?>(nil)
    private let channel = NIOLockedValueBox<Channel?>(nil)
    private let heard = NIOLockedValueBox(false)

    init(sessionID: String, endpoint: AgentEndpoint, identity: DeviceIdentity) {
        self.sessionID = sessionID
        self.endpoint = endpoint
        self.identity = identity
    }

    /// Ends the exchange with `reason` unless it has an outcome already.
    func giveUp(_ reason: String) {
        settle(.unanswered(reason))
        channel.withLockedValue { $0 }?.close(promise: nil)
    }

    private func settle(_ result: AgentCopy.Outcome) {
        outcome.withLockedValue { if $0 == nil { $0 = result } }
    }

    func run(deadline: Date) async -> AgentCopy.Outcome {
        let clock: @Sendable () -> Int64 = { MonotonicTime.now() }
        let envelopes: EnvelopeChannel
        let host: String
        do {
            (envelopes, host) = try await AgentLink.connectAny(endpoint, identity: identity, deadline: deadline)
        } catch let error as TransportError where error.unreachable {
            settle(.unanswered("not reachable: " + error.description))
            return outcome.withLockedValue { $0! }
        } catch {
            settle(.unanswered("\(error)"))
            return outcome.withLockedValue { $0! }
        }
        channel.withLockedValue { $0 = envelopes.channel }
        // The timer may have fired while connecting.
        if outcome.withLockedValue({ $0 }) != nil { envelopes.channel.close(promise: nil) }
        let machine = CoordinatorConnectionStateMachine(configuration: .init(hello: TakeRecorder.hello()), now: clock())
        let connection = CoordinatorConnection(machine: machine, clock: clock)
        var failure: Error?
        var closedBy: ProtocolError?
        do {
            closedBy = try await connection.run(envelopes) { delivery in
                self.heard.withLockedValue { $0 = true }
                self.handle(delivery.event, connection)
            }
        } catch {
            failure = error
        }
        if let closedBy {
            settle(.unanswered("the connection failed: \(closedBy)"))
        } else {
            settle(.unanswered(TLSTransport.explain(failure, receivedAnything: heard.withLockedValue { $0 }, host: host,
                                                   port: endpoint.port, identity: identity)))
        }
        return outcome.withLockedValue { $0! }
    }

    private func handle(_ event: CoordinatorEvent, _ connection: CoordinatorConnection) {
        switch event {
        case .connected(let ack):
            // Minor versions are additive (§11): an older agent would ignore the request.
            guard ack.version.minor >= 4 else {
                settle(.kept(reason: "it speaks protocol \(ack.version.major).\(ack.version.minor), which cannot forget a session "
                    + "(1.4 can); update dualcam-agent there"))
                connection.finish()
                return
            }
            var request = Dualcam_V1_ForgetSession()
            request.sessionID = sessionID
            do {
                try connection.send(.forgetSession(request))
            } catch {
                settle(.unanswered("ForgetSession not sent: \(error)"))
                connection.finish()
            }
        case .sessionForgotten(let answer):
            if !answer.reason.isEmpty {
                settle(.kept(reason: answer.reason))
            } else {
                settle(answer.freedBytes > 0 ? .freed(bytes: answer.freedBytes) : .heldNothing)
            }
            connection.finish()
        case .peerError(let error) where error.fatal:
            settle(.kept(reason: "it refused: \(error.message)"))
        default:
            break  // clock pings are answered by the machine; nothing else concerns a delete
        }
    }
}
