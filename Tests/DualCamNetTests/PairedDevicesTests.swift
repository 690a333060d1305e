import DualCamNet
import Foundation
import Testing

struct PairedDevicesTests {
    func temporaryFolder() -> String {
        NSTemporaryDirectory() + "dualcam-paired-\(UUID().uuidString)"
    }

    @Test func addListRemoveAndFileMode() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = PairedDevices(stateDirectory: folder)
        #expect(try store.entries().isEmpty)
        let one = DeviceID(bytes: Array(repeating: 1, count: 32))
        let two = DeviceID(bytes: Array(repeating: 2, count: 32))
        try store.add(.init(deviceID: one, name: "pi-host", role: "host", pairedAt: Date(timeIntervalSince1970: 1_800_000_000)))
        try store.add(.init(deviceID: two, name: "pi-guest", role: "guest", pairedAt: Date()))
        // Pairing again refreshes the entry instead of adding a second one.
        try store.add(.init(deviceID: one, name: "pi-host-renamed", role: "host", pairedAt: Date()))
        #expect(store.trusted() == [one, two])
        #expect(try store.entries().count == 2)
        let mode = try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        #expect(try store.remove(matching: "PI-GUEST").map(\.name) == ["pi-guest"])
        #expect(try store.remove(matching: String(one.description.prefix(7))).map(\.name) == ["pi-host-renamed"])
        #expect(store.trusted().isEmpty)
        #expect(try store.remove(matching: "nobody").isEmpty)
    }

    @Test func aDamagedFileTrustsNobodyAndSaysWhatToDo() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let store = PairedDevices(stateDirectory: folder)
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: store.path))
        #expect(store.trusted().isEmpty)
        do {
            _ = try store.entries()
            Issue.record("a damaged file was read")
        } catch let error as PairingError {
            #expect(error.description.contains("pair again"))
        }
    }
}
