import DualCamNet
import Foundation
import Testing
@testable import DualCamCoordinator

/// Sessions live in one folder whatever the current folder (`cd /tmp; list` found none),
/// and `discover --follow` speaks of agents, not of their announcements.
@Suite(.serialized) struct LibraryHomeTests {
    @Test func theLibraryIsTheVideosFolderOrTheConfigsChoice() throws {
        let home = NSTemporaryDirectory() + "dualcam-home-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: home) }
        try FileManager.default.createDirectory(atPath: home + "/.config", withIntermediateDirectories: true)
        let env = ["HOME": home]
        #expect(SessionHome.directory(config: CoordinatorConfig(path: "/nonexistent"), environment: env) == home + "/Videos/DualCam")
        try "XDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_VIDEOS_DIR=\"$HOME/Vidéos\"\n"
            .write(toFile: home + "/.config/user-dirs.dirs", atomically: true, encoding: .utf8)
        #expect(SessionHome.directory(config: CoordinatorConfig(path: "/nonexistent"), environment: env) == home + "/Vidéos/DualCam")
        try "library = /srv/recordings/\n".write(toFile: home + "/c.conf", atomically: true, encoding: .utf8)
        #expect(SessionHome.directory(config: CoordinatorConfig(path: home + "/c.conf"), environment: env) == "/srv/recordings")
    }

    func agent(_ instance: String, id: UInt8, address: String, open: Bool = false) -> DiscoveredAgent {
        var ad = AgentAdvertisement(deviceID: DeviceID(bytes: Array(repeating: id, count: 32)), name: "pi-\(id)", role: "guest",
                                    protocolMajor: 1, protocolMinor: 3)
        ad.pairingOpen = open
        return DiscoveredAgent(instanceName: instance, advertisement: ad, hostName: "pi.local", port: 4464, addresses: [address])
    }

    /// One agent seen on two interfaces (two instances) and updated with the same
    /// address: one line; a pairing window opening: one more; gone from one interface:
    /// nothing; gone from both: one line.
    @Test func followingPrintsAgentsOnceEach() {
        var follower = DiscoveryFollower()
        let describe = { (a: DiscoveredAgent) in "\(a.advertisement.name) \(a.addresses[0])\(a.advertisement.pairingOpen ? " open" : "")" }
        var out: [String] = []
        for event: DiscoveryEvent in [
            .updated(agent("pi-7@eth0-v4", id: 7, address: "192.168.1.7")),
            .updated(agent("pi-7@eth0-v6", id: 7, address: "192.168.1.7")),
            .updated(agent("pi-7@eth0-v4", id: 7, address: "192.168.1.7")),
            .updated(agent("pi-7@eth0-v4", id: 7, address: "192.168.1.7", open: true)),
            .removed(instanceName: "pi-7@eth0-v6"),
            .removed(instanceName: "pi-7@eth0-v4"),
            .removed(instanceName: "never-seen"),
        ] {
            out += follower.lines(for: event, describe: describe)
        }
        #expect(out == ["+ pi-7 192.168.1.7", "+ pi-7 192.168.1.7 open", "- pi-7 192.168.1.7 open"])
    }
}
