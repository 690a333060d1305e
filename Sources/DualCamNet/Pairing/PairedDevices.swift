import Foundation

/// The peers a node has paired with, kept as `paired.json` (mode 0600) in its state
/// folder. Read afresh on every use, so that `unpair` run from another process takes
/// effect at the next connection without restarting a running agent.
public struct PairedDevices: Sendable {
    public struct Entry: Codable, Sendable, Equatable {
        public var deviceID: String
        public var name: String
        public var role: String
        public var pairedAt: Date

        public init(deviceID: DeviceID, name: String, role: String, pairedAt: Date) {
            self.deviceID = deviceID.description
            self.name = name
            self.role = role
            self.pairedAt = pairedAt
        }

        public var id: DeviceID? { DeviceID(parsing: deviceID) }
    }

    public static let fileName = "paired.json"
    public let path: String

    public init(stateDirectory: String) {
        self.path = stateDirectory + "/" + PairedDevices.fileName
    }

    public func entries() throws -> [Entry] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        do {
            return try PairedDevices.decoder().decode([Entry].self, from: data)
        } catch {
            throw PairingError("\(path) cannot be read (\(error)); fix or delete it and pair again")
        }
    }

    /// The pinned IDs; an unreadable file trusts nobody (and says so through `entries`).
    public func trusted() -> Set<DeviceID> {
        Set(((try? entries()) ?? []).compactMap(\.id))
    }

    /// Adds or refreshes the entry for `entry.deviceID`.
    public func add(_ entry: Entry) throws {
        var all = try entries().filter { $0.deviceID != entry.deviceID }
        all.append(entry)
        try write(all)
    }

    /// Removes the entries whose device ID, first ID group or name equals `selector`
    /// (case-insensitive); returns them.
    @discardableResult
    public func remove(matching selector: String) throws -> [Entry] {
        let all = try entries()
        let wanted = selector.uppercased()
        let parsed = DeviceID(parsing: selector)?.description
        let (gone, kept) = all.reduce(into: ([Entry](), [Entry]())) { split, entry in
            let hit = entry.deviceID == parsed || entry.deviceID.hasPrefix(wanted + "-")
                || entry.name.caseInsensitiveCompare(selector) == .orderedSame
            if hit { split.0.append(entry) } else { split.1.append(entry) }
        }
        if !gone.isEmpty { try write(kept) }
        return gone
    }

    public func removeAll() throws -> [Entry] {
        let all = try entries()
        try write([])
        return all
    }

    private func write(_ entries: [Entry]) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(entries)
        // Written beside and renamed over, so a crash never leaves half a trust list.
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data,
                                             attributes: [.posixPermissions: 0o600]) else {
            throw PairingError("cannot write \(temporary)")
        }
        guard rename(temporary, path) == 0 else {
            throw PairingError("cannot replace \(path): \(String(cString: strerror(errno)))")
        }
    }

    private static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
