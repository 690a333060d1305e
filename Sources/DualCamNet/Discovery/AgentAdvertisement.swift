/// What an agent announces about itself over DNS-SD (`_dualcam._tcp`), as TXT records:
/// `id=` its device ID, `name=`, `role=`, `proto=MAJOR.MINOR`, `pairing=open` while its
/// pairing window is open, and `problem=` while its camera cannot record (why, and what
/// to do; since 1.8). The TXT record is a hint
/// for finding agents, never a credential: the connection still pins the device ID the
/// user paired with, so a forged record can at worst point at a peer that is refused.
public struct AgentAdvertisement: Sendable, Hashable {
    public static let serviceType = "_dualcam._tcp"

    public var deviceID: DeviceID
    public var name: String
    public var role: String
    public var protocolMajor: UInt32
    public var protocolMinor: UInt32
    /// The agent's pairing window is open (only then can an unpaired coordinator pair).
    public var pairingOpen = false
    /// Why the agent's camera cannot record now (e.g. it is unplugged); nil while it can.
    public var sourceProblem: String?

    public init(deviceID: DeviceID, name: String, role: String, protocolMajor: UInt32, protocolMinor: UInt32) {
        self.deviceID = deviceID
        self.name = name
        self.role = role
        self.protocolMajor = protocolMajor
        self.protocolMinor = protocolMinor
    }

    /// TXT strings, each under DNS-SD's 255-byte limit (a name is cut to fit).
    public var txtRecords: [String] {
        var shortName = name
        while shortName.utf8.count > 200 { shortName.removeLast() }
        return ["id=\(deviceID)", "name=\(shortName)", "role=\(role)",
         "proto=\(protocolMajor).\(protocolMinor)"] + (pairingOpen ? ["pairing=open"] : [])
            + (sourceProblem.map { ["problem=" + Self.cut($0, toBytes: 200)] } ?? [])
    }

    /// `text` cut at a character boundary to at most `limit` UTF-8 bytes.
    static func cut(_ text: String, toBytes limit: Int) -> String {
        var short = text
        while short.utf8.count > limit { short.removeLast() }
        return short
    }

    /// Reads TXT strings; nil when the device ID is missing or malformed (not a DualCam
    /// agent, or a damaged record). Unknown keys are ignored, as DNS-SD asks.
    public init?(txtRecords: [String]) {
        var fields: [String: String] = [:]
        for record in txtRecords {
            guard let eq = record.firstIndex(of: "=") else { continue }
            let key = record[..<eq].lowercased()
            if fields[key] == nil { fields[key] = String(record[record.index(after: eq)...]) }
        }
        guard let idText = fields["id"], let id = DeviceID(parsing: idText) else { return nil }
        let version = (fields["proto"] ?? "").split(separator: ".").compactMap { UInt32($0) }
        self.init(deviceID: id, name: fields["name"] ?? "", role: fields["role"] ?? "",
                  protocolMajor: version.first ?? 0, protocolMinor: version.count > 1 ? version[1] : 0)
        pairingOpen = fields["pairing"] == "open"
        sourceProblem = fields["problem"].flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// An agent found on the network: its advertisement and where it answers.
public struct DiscoveredAgent: Sendable, Hashable {
    /// The DNS-SD instance name (unique on the link; the daemon renames on collision).
    public var instanceName: String
    public var advertisement: AgentAdvertisement
    public var hostName: String
    public var port: Int
    /// Resolved addresses, most direct first (loopback, then IPv4, then IPv6).
    public var addresses: [String]

    public init(instanceName: String, advertisement: AgentAdvertisement, hostName: String, port: Int, addresses: [String]) {
        self.instanceName = instanceName
        self.advertisement = advertisement
        self.hostName = hostName
        self.port = port
        self.addresses = addresses
    }
}

/// What a browse reports as agents come and go.
public enum DiscoveryEvent: Sendable {
    /// An agent appeared, or its addresses or TXT changed.
    case updated(DiscoveredAgent)
    /// Every instance of the agent is gone.
    case removed(instanceName: String)
    /// The connection to avahi-daemon failed; no further events follow.
    case failed(AvahiError)
}
