import DualCamNet
import Foundation
import Logging
import Testing

/// Publishing and browsing through the real avahi-daemon, which the suite starts itself
/// (deploy/ensure-avahi.sh: dbus and avahi-daemon, as on the CI machine, run as root).
@Suite(.serialized) struct DiscoveryTests {
    static let daemonReady: Bool = {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../deploy/ensure-avahi.sh").standardizedFileURL.path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script]
        do {
            try process.run()
            process.waitUntilExit()
        } catch {
            return false
        }
        return process.terminationStatus == 0
    }()

    func advertisement(_ name: String, seed: UInt8) -> AgentAdvertisement {
        AgentAdvertisement(deviceID: DeviceID(bytes: Array(repeating: seed, count: 32)), name: name, role: "guest",
                           protocolMajor: 1, protocolMinor: 0)
    }

    @Test func txtRecordsRoundTrip() throws {
        let ad = advertisement("pi guest = one", seed: 7)
        let parsed = try #require(AgentAdvertisement(txtRecords: ad.txtRecords))
        #expect(parsed == ad)
        var open = ad
        open.pairingOpen = true
        #expect(open.txtRecords.contains("pairing=open"))
        #expect(AgentAdvertisement(txtRecords: open.txtRecords) == open)
        #expect(AgentAdvertisement(txtRecords: ["id=nonsense", "proto=1.0"]) == nil)
        // A camera that cannot record is said in the record (1.8), cut to fit a TXT string.
        var missing = ad
        missing.sourceProblem = "camera /dev/video9 is missing: plug it in"
        #expect(missing.txtRecords.contains("problem=camera /dev/video9 is missing: plug it in"))
        #expect(AgentAdvertisement(txtRecords: missing.txtRecords) == missing)
        #expect(!ad.txtRecords.contains { $0.hasPrefix("problem=") })
        missing.sourceProblem = String(repeating: "é", count: 300)
        let long = try #require(missing.txtRecords.first { $0.hasPrefix("problem=") })
        #expect(long.utf8.count <= 255 && long.hasSuffix("é"))
    }

    /// Waits for the first event that `match` accepts.
    func waitFor(_ events: AsyncStream<DiscoveryEvent>, seconds: Double,
                 _ match: @escaping @Sendable (DiscoveryEvent) -> Bool) async -> DiscoveryEvent? {
        let found = Task {
            for await event in events where match(event) { return Optional(event) }
            return nil
        }
        let timeout = Task {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            found.cancel()
        }
        defer { timeout.cancel() }
        return await found.value
    }

    @Test func aPublishedAgentIsBrowsedResolvedAndSeenLeaving() async throws {
        try #require(Self.daemonReady, "avahi-daemon could not be started (run the suite as root, or start it)")
        let name = "dualcam-test-\(UInt32.random(in: 0...UInt32.max))"
        let ad = advertisement(name, seed: 42)
        let (browser, events) = try AgentBrowser.browse()
        defer { browser.finish() }
        var publisher: AgentPublisher? = try AgentPublisher(advertisement: ad, port: 45123, interfaceName: "lo",
                                                            logger: Logger(label: "test"))
        let seen = await waitFor(events, seconds: 10) { event in
            if case .updated(let agent) = event { agent.advertisement.name == name } else { false }
        }
        guard case .updated(let agent)? = seen else {
            Issue.record("the published agent was not browsed within 10 s")
            return
        }
        #expect(agent.advertisement == ad)
        #expect(agent.port == 45123)
        #expect(agent.addresses.first == "127.0.0.1", "\(agent.addresses)")
        #expect(!agent.advertisement.pairingOpen)
        // Opening the pairing window changes the TXT record in place; browsers see it.
        publisher?.update(pairingOpen: true)
        let reopened = await waitFor(events, seconds: 10) { event in
            if case .updated(let agent) = event { agent.advertisement.name == name && agent.advertisement.pairingOpen } else { false }
        }
        #expect(reopened != nil, "the TXT update was not seen")
        // A camera that goes and comes back (SourceWatch) is said in place too.
        let missing = "camera /dev/video9 is missing: plug it in"
        publisher?.update(sourceProblem: missing)
        let notReady = await waitFor(events, seconds: 10) { event in
            if case .updated(let agent) = event { agent.advertisement.name == name && agent.advertisement.sourceProblem == missing } else { false }
        }
        #expect(notReady != nil, "the problem was not announced")
        publisher?.update(sourceProblem: nil)
        let back = await waitFor(events, seconds: 10) { event in
            if case .updated(let agent) = event {
                agent.advertisement.name == name && agent.advertisement.sourceProblem == nil && agent.advertisement.pairingOpen
            } else { false }
        }
        #expect(back != nil, "the camera's return was not announced")
        publisher = nil
        let gone = await waitFor(events, seconds: 10) { event in
            if case .removed(let instance) = event { instance == agent.instanceName } else { false }
        }
        #expect(gone != nil, "the agent's leaving was not reported")
    }

    @Test func aNameAlreadyTakenIsRenamed() async throws {
        try #require(Self.daemonReady, "avahi-daemon could not be started (run the suite as root, or start it)")
        let name = "dualcam-twin-\(UInt32.random(in: 0...UInt32.max))"
        let first = try AgentPublisher(advertisement: advertisement(name, seed: 1), port: 45124, interfaceName: "lo",
                                       logger: Logger(label: "test"))
        let second = try AgentPublisher(advertisement: advertisement(name, seed: 2), port: 45125, interfaceName: "lo",
                                        logger: Logger(label: "test"))
        var names: [String] = []
        for _ in 0..<100 {
            names = [first.publishedName, second.publishedName]
            if names[0] != names[1] { break }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        #expect(names[0] != names[1], "both kept \(names[0])")
        let agents = try await AgentBrowser.snapshot(seconds: 2).filter { $0.advertisement.name == name }
        #expect(Set(agents.map(\.advertisement.deviceID)).count == 2, "\(agents)")
    }
}

/// Which address family an agent is announced with, from the address it listens on.
struct PublisherFamilyTests {
    @Test func theListenAddressDecidesTheAnnouncedFamily() {
        #expect(AgentPublisher.Family(listeningOn: "::") == .any)
        #expect(AgentPublisher.Family(listeningOn: "") == .any)
        #expect(AgentPublisher.Family(listeningOn: "10.77.0.11") == .ipv4)
        #expect(AgentPublisher.Family(listeningOn: "0.0.0.0") == .ipv4)
        #expect(AgentPublisher.Family(listeningOn: "2001:db8::7") == .ipv6)
        #expect(AgentPublisher.Family(listeningOn: "fe80::1%eth0") == .ipv6)
        #expect(AgentPublisher.Family(listeningOn: "10.77.0.300") == .any)
        #expect(AgentPublisher.Family(listeningOn: "pi-host.local") == .any)
    }
}
