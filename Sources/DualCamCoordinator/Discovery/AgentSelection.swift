import DualCamNet
import DualCamProtocol
import Foundation

/// Turns what the user typed for `--agent` (or nothing) into endpoints to record from.
public enum AgentSelection {
    /// One `--agent` value: `HOST:PORT,DEVICE-ID`, `HOST:PORT` (any paired agent there) or
    /// `DEVICE-ID` (found over mDNS).
    public enum Spec: Sendable, Equatable {
        case address(host: String, port: Int, id: DeviceID?)
        case id(DeviceID)

        public init(parsing text: String) throws {
            let parts = text.split(separator: ",", maxSplits: 1).map(String.init)
            if parts.count == 1, let id = DeviceID(parsing: parts[0]) {
                self = .id(id)
                return
            }
            let hostPort = parts.first ?? ""
            if let colon = hostPort.lastIndex(of: ":"), let port = Int(hostPort[hostPort.index(after: colon)...]),
               !(1...65535).contains(port) {
                throw CoordinatorError("--agent \(text): port \(port) is out of range: give 1 to 65535")
            }
            guard let colon = hostPort.lastIndex(of: ":"), let port = Int(hostPort[hostPort.index(after: colon)...]),
                  (1...65535).contains(port), colon != hostPort.startIndex else {
                throw CoordinatorError("--agent \(text): expected HOST:PORT, HOST:PORT,DEVICE-ID or DEVICE-ID")
            }
            var id: DeviceID?
            if parts.count == 2 {
                guard let parsed = DeviceID(parsing: parts[1]) else {
                    throw CoordinatorError("--agent \(text): \(parts[1]) is not a device ID (a check character does not "
                        + "match; copy it again from `dualcam-agent id`)")
                }
                id = parsed
            }
            var host = String(hostPort[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            self = .address(host: host, port: port, id: id)
        }
    }

    /// The agents a take will ask for, and the paired ones that could not be found (each
    /// with what to do), so that a take without them says so.
    public struct Selection: Sendable {
        public var endpoints: [AgentEndpoint]
        /// The paired agents not found, each with its device ID (to match the last take's).
        public var absentNodes: [Absent] = []
        /// Each absent agent as "NAME [role]: why, and what to do".
        public var absent: [String] { absentNodes.map(\.line) }

        public init(endpoints: [AgentEndpoint], absentNodes: [Absent] = []) {
            self.endpoints = endpoints
            self.absentNodes = absentNodes
        }
    }

    /// A paired agent that did not answer.
    public struct Absent: Sendable, Equatable {
        public var deviceID: String
        public var name: String
        public var role: String
        /// Why it is not here, and what to do.
        public var reason: String

        public init(deviceID: String, name: String, role: String, reason: String) {
            self.deviceID = deviceID
            self.name = name
            self.role = role
            self.reason = reason
        }

        /// "NAME [role]: why, and what to do".
        public var line: String { "\(name) [\(role)]: \(reason)" }
    }

    public static func resolve(_ specs: [Spec], paired: PairedDevices, identity: DeviceIdentity,
                               discoverSeconds: Double, progress: @escaping @Sendable (String) -> Void) async throws
        -> Selection {
        let trusted = paired.trusted()
        if specs.isEmpty { return try await allPaired(paired, seconds: discoverSeconds, progress: progress) }
        var endpoints: [AgentEndpoint] = []
        for spec in specs {
            switch spec {
            case .address(let host, let port, let id?):
                endpoints.append(AgentEndpoint(host: host, port: port, deviceID: id))
            case .address(let host, let port, nil):
                // Asked even with nothing paired: "nothing listens there" is the more
                // useful answer when that is the case.
                let id = try await identify(host: host, port: port, identity: identity, trusted: trusted)
                endpoints.append(AgentEndpoint(host: host, port: port, deviceID: id))
            case .id(let id):
                endpoints += try await AgentFinder.find([id], timeoutSeconds: discoverSeconds, progress: progress)
            }
        }
        return Selection(endpoints: endpoints)
    }

    /// Every paired agent that answers over mDNS, host first, then guest, then others.
    static func allPaired(_ paired: PairedDevices, seconds: Double,
                          progress: @escaping @Sendable (String) -> Void) async throws -> Selection {
        let trusted = paired.trusted()
        guard !trusted.isEmpty else {
            throw CoordinatorError("no agent is paired with this coordinator: run `dualcam-coordinator pair`, "
                + "or name agents with --agent HOST:PORT,DEVICE-ID")
        }
        progress("looking for the \(trusted.count) paired agent\(trusted.count == 1 ? "" : "s") over mDNS (up to \(Int(seconds)) s)…")
        let seen = try await AgentBrowser.snapshot(seconds: seconds, enough: { found in
            trusted.isSubset(of: Set(found.filter { !$0.addresses.isEmpty }.map(\.advertisement.deviceID)))
        }).filter { trusted.contains($0.advertisement.deviceID) && !$0.addresses.isEmpty }
        guard !seen.isEmpty else {
            throw CoordinatorError("none of the \(trusted.count) paired agents answered over mDNS within \(Int(seconds)) s; "
                + "check they run and are on this network, or name them with --agent HOST:PORT")
        }
        let order = ["host": 0, "guest": 1]
        let sorted = seen.sorted {
            (order[$0.advertisement.role] ?? 2, $0.advertisement.name) < (order[$1.advertisement.role] ?? 2, $1.advertisement.name)
        }
        for agent in sorted {
            // What the agent announces of its camera is said before anything connects; a
            // TXT record is anyone's to write, so only its printable characters are.
            progress("found \(agent.advertisement.name) (\(agent.advertisement.role)) through mDNS at \(agent.addresses[0]) port \(agent.port)"
                     + (agent.advertisement.sourceProblem.map { "; it is NOT READY: " + WireIdentifier.printable($0) } ?? ""))
        }
        let found = Set(sorted.map(\.advertisement.deviceID))
        let absent = ((try? paired.entries()) ?? []).filter { entry in entry.id.map { !found.contains($0) } ?? false }.map { entry in
            // Read after "recording without " and "NOT HERE: " as well as alone: the name
            // first, then why, so that every sentence that names it reads as one.
            Absent(deviceID: entry.deviceID, name: entry.name, role: entry.role,
                   reason: "paired, but it did not answer over mDNS within \(Int(seconds)) s (start dualcam-agent there, check it "
                       + "is on this network, or name it with --agent HOST:PORT)")
        }
        for node in absent { progress("warning: " + node.line) }
        return Selection(endpoints: sorted.map { AgentEndpoint(hosts: $0.addresses, port: $0.port, deviceID: $0.advertisement.deviceID) },
                         absentNodes: absent)
    }

    /// The paired agents named for host and guest (by the name they announce), in that
    /// order; their own configured roles do not matter for this session.
    public static func byName(host: String, guest: String, paired: PairedDevices, seconds: Double,
                              progress: @escaping @Sendable (String) -> Void) async throws -> [AgentEndpoint] {
        let trusted = paired.trusted()
        progress("looking for \(host) and \(guest) over mDNS (up to \(Int(seconds)) s)…")
        let names = [host, guest]
        let seen = try await AgentBrowser.snapshot(seconds: seconds, enough: { found in
            names.allSatisfy { name in
                found.contains { !$0.addresses.isEmpty && $0.advertisement.name.caseInsensitiveCompare(name) == .orderedSame }
            }
        }).filter { !$0.addresses.isEmpty }
        return try [host, guest].map { wanted in
            let matches = seen.filter {
                $0.advertisement.name.caseInsensitiveCompare(wanted) == .orderedSame
                    || $0.instanceName.caseInsensitiveCompare(wanted) == .orderedSame
            }
            guard let agent = matches.first else {
                let names = Set(seen.map(\.advertisement.name)).sorted()
                throw CoordinatorError("no agent named \(wanted) answered over mDNS within \(Int(seconds)) s"
                    + (names.isEmpty ? "" : "; found: \(names.joined(separator: ", "))"))
            }
            guard trusted.contains(agent.advertisement.deviceID) else {
                throw CoordinatorError("\(wanted) is not paired with this coordinator: run `dualcam-coordinator pair` first")
            }
            progress("found \(wanted) through mDNS at \(agent.addresses[0]) port \(agent.port)")
            return AgentEndpoint(hosts: agent.addresses, port: agent.port, deviceID: agent.advertisement.deviceID)
        }
    }

    /// Learns which paired agent listens at an address: a handshake that accepts any of
    /// them, closed before any message.
    static func identify(host: String, port: Int, identity: DeviceIdentity, trusted: Set<DeviceID>) async throws -> DeviceID {
        do {
            let (channel, id) = try await TLSTransport.connect(
                host: host, port: port, identity: identity, policy: PeerPolicy(trusted: trusted),
                clock: { MonotonicTime.now() })
            try? await channel.executeThenClose { _, _ in }
            return id
        } catch let error as TransportError where error.unreachable {
            throw CoordinatorError(error.description)
        } catch {
            throw CoordinatorError("\(error) (the agent at \(host):\(port) is not one this coordinator paired with: "
                + "`dualcam-coordinator paired` lists them; `dualcam-coordinator pair --agent \(host):\(port)` pairs it)")
        }
    }
}
