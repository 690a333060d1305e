import DualCamNet
import Foundation

/// Finds agents by device ID over mDNS: the user (or the demo) knows whom to trust, the
/// network says where they are.
public enum AgentFinder {
    /// Browses until every ID in `wanted` has resolved, or `timeoutSeconds` pass. Returns
    /// one endpoint per wanted ID, in order; an agent that advertises a different ID than
    /// the one wanted is never picked, whatever its name.
    public static func find(_ wanted: [DeviceID], timeoutSeconds: Double,
                            progress: @Sendable (String) -> Void = { _ in }) async throws -> [AgentEndpoint] {
        let (browser, events) = try AgentBrowser.browse()
        defer { browser.finish() }
        var found: [DeviceID: DiscoveredAgent] = [:]
        let timeout = Task {
            try? await Task.sleep(nanoseconds: UInt64(timeoutSeconds * 1e9))
            browser.finish()
        }
        defer { timeout.cancel() }
        var linger: Task<Void, Never>?
        defer { linger?.cancel() }
        for await event in events {
            switch event {
            case .updated(let agent):
                let id = agent.advertisement.deviceID
                guard wanted.contains(id), !agent.addresses.isEmpty else { continue }
                if found[id] == nil {
                    progress("found \(agent.advertisement.name.isEmpty ? agent.instanceName : agent.advertisement.name) "
                             + "through mDNS at \(agent.addresses[0]) port \(agent.port)")
                }
                found[id] = agent
            case .removed(let name):
                found = found.filter { $0.value.instanceName != name }
            case .failed(let error):
                throw error
            }
            // Each protocol (IPv4, IPv6) and interface resolves on its own: a moment more
            // collects every address, so a connection that fails on one tries the next.
            if linger == nil, wanted.allSatisfy({ found[$0] != nil }) {
                linger = Task {
                    try? await Task.sleep(nanoseconds: 400_000_000)
                    browser.finish()
                }
            }
        }
        let missing = wanted.filter { found[$0] == nil }
        guard missing.isEmpty else {
            throw CoordinatorError("no agent with device ID \(missing.map(\.description).joined(separator: ", ")) "
                + "answered over mDNS within \(Int(timeoutSeconds)) s; check it runs and is on this network, "
                + "or name it with --agent HOST:PORT,DEVICE-ID")
        }
        return wanted.map { id in
            let agent = found[id]!
            return AgentEndpoint(hosts: agent.addresses, port: agent.port, deviceID: id)
        }
    }
}
