import Foundation

/// The camera settings the agent keeps in its state folder (`camera-controls.json`), per
/// camera, so that they come back when the camera is opened again: after the agent
/// restarts, after a replug. A camera is known by its card name and bus, not by its node
/// (/dev/video0 today may be /dev/video2 after a replug).
struct ControlStore: Sendable {
    struct Camera: Codable, Sendable, Equatable {
        /// Control values as set, by stable name, in the order they were set.
        var settings: [Setting] = []
        var locked: [String] = []
        /// The automatic modes' values before a lock, for its release.
        var beforeLock: [String: Int64] = [:]
        var zoom: Zoom?
    }

    struct Setting: Codable, Sendable, Equatable {
        var name: String
        var value: Int64
    }

    struct Zoom: Codable, Sendable, Equatable {
        var factor: Double
        var x: Double
        var y: Double
    }

    struct Contents: Codable, Sendable, Equatable {
        var cameras: [String: Camera] = [:]
        var lockDuringTakes = false
    }

    let path: String

    init(stateDirectory: String) {
        path = stateDirectory + "/camera-controls.json"
    }

    /// What was saved; an unreadable file is reported and treated as empty (the
    /// settings are a convenience: a broken file must not keep a camera from recording).
    func load() -> (Contents, problem: String?) {
        guard let data = FileManager.default.contents(atPath: path) else { return (Contents(), nil) }
        do {
            return (try JSONDecoder().decode(Contents.self, from: data), nil)
        } catch {
            return (Contents(), "\(path) is not readable as camera settings (\(error)); starting from the camera's own")
        }
    }

    func save(_ contents: Contents) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(contents)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        // Whole or not at all: a crash mid-write must not leave half a file.
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

extension ControlStore.Camera {
    /// Records a value set, replacing an earlier one of the same control (the order of
    /// first setting is kept: an automatic mode stays before what it governs).
    mutating func remember(_ name: String, _ value: Int64) {
        if let i = settings.firstIndex(where: { $0.name == name }) {
            settings[i].value = value
        } else {
            settings.append(.init(name: name, value: value))
        }
    }

    mutating func forget(_ names: [String]) {
        settings.removeAll { names.contains($0.name) }
    }
}
