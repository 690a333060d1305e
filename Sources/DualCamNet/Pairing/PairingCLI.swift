import Foundation

/// The listing and revoking both executables offer, worded for a terminal.
public enum PairingCLI {
    public static func list(_ paired: PairedDevices, kind: String) throws {
        let entries = try paired.entries()
        guard !entries.isEmpty else {
            print("No \(kind) is paired (\(paired.path)).")
            return
        }
        let formatter = ISO8601DateFormatter()
        for entry in entries.sorted(by: { $0.pairedAt < $1.pairedAt }) {
            let role = entry.role.isEmpty || entry.role == kind ? "" : " [\(entry.role)]"
            print("\(entry.deviceID)  \(entry.name)\(role)  paired \(formatter.string(from: entry.pairedAt))")
        }
    }

    public static func unpair(_ paired: PairedDevices, selector: String?, all: Bool, kind: String) throws {
        let removed: [PairedDevices.Entry]
        switch (selector, all) {
        case (nil, true):
            removed = try paired.removeAll()
        case (let selector?, false):
            removed = try paired.remove(matching: selector)
            guard !removed.isEmpty else {
                throw PairingError("no paired \(kind) matches \"\(selector)\"; `paired` lists them")
            }
        default:
            throw PairingError("name one \(kind) (device ID, first ID group or name), or pass --all")
        }
        for entry in removed { print("Unpaired \(kind) \"\(entry.name)\" (\(entry.deviceID)).") }
        if removed.isEmpty { print("No \(kind) was paired.") }
    }
}
