import DualCamNet

/// `discover --follow` as agents, not announcements: Avahi reports an agent once per
/// address family and interface it is seen on, and again on every TXT change; the user
/// wants one line when an agent appears or changes, and one when it is gone.
public struct DiscoveryFollower: Sendable {
    /// Instance names (one per interface/protocol) → the agent's device ID.
    private var instances: [String: DeviceID] = [:]
    /// What was last printed for each agent.
    private var shown: [DeviceID: String] = [:]

    public init() {}

    public mutating func lines(for event: DiscoveryEvent, describe: (DiscoveredAgent) -> String) -> [String] {
        switch event {
        case .updated(let agent):
            let id = agent.advertisement.deviceID
            instances[agent.instanceName] = id
            let text = describe(agent)
            guard shown[id] != text else { return [] }
            shown[id] = text
            return ["+ " + text]
        case .removed(let name):
            guard let id = instances.removeValue(forKey: name), !instances.values.contains(id),
                  let last = shown.removeValue(forKey: id) else { return [] }
            return ["- " + last]
        case .failed:
            return []
        }
    }
}
