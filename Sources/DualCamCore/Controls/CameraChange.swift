/// What a coordinator (or the local `controls` command) asks of the camera: values to set,
/// a zoom, locks. Everything optional; an empty change only reads.
public struct CameraChange: Sendable {
    public struct Setting: Sendable, Equatable {
        public var name: String
        /// As typed: a number, on/off, or a menu entry's name; judged against the camera.
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public struct Zoom: Sendable, Equatable {
        public var factor: Double
        public var centre: ZoomPoint
        public var rampNanoseconds: Int64
        public init(factor: Double, centre: ZoomPoint = .centre, rampNanoseconds: Int64 = 0) {
            self.factor = factor
            self.centre = centre
            self.rampNanoseconds = rampNanoseconds
        }
    }

    public var settings: [Setting] = []
    public var zoom: Zoom?
    public var lock: [ControlLock] = []
    public var unlock: [ControlLock] = []
    public var lockDuringTakes: Bool?

    public init() {}
}

/// The camera after a change: its controls as the driver now reports them, and what
/// became of each thing asked.
public struct CameraReport: Sendable {
    public struct Outcome: Sendable, Equatable {
        public var name: String
        /// The value in effect when applied (drivers round and clamp); nil for a lock, a zoom.
        public var value: Int64?
        /// Why it was not applied, and what to do; nil when applied.
        public var problem: String?
        public var applied: Bool { problem == nil }
        public init(name: String, value: Int64? = nil, problem: String? = nil) {
            self.name = name
            self.value = value
            self.problem = problem
        }
    }

    public var camera: String
    /// Why the source has no controls of its own (a pipe, the synthetic pattern); nil for a camera.
    public var note: String?
    public var controls: [CameraControl] = []
    public var outcomes: [Outcome] = []
    public var zoom = ZoomRamp.none
    public var lockDuringTakes = false
    public var locked: [ControlLock] = []

    public init(camera: String, note: String? = nil) {
        self.camera = camera
        self.note = note
    }
}

/// The words a person types for camera controls, checked before anything is asked of a
/// camera: one parser for every command that takes them.
public enum CameraWords {
    /// `name=value`; the sentence says what to type instead.
    public static func setting(_ word: String) -> Result<CameraChange.Setting, CameraWordsProblem> {
        guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
            return .failure(.init("--set \(word): give name=value, e.g. --set brightness=140 (a listing of the controls shows the names)"))
        }
        let name = String(word[..<equals])
        guard CameraControlNames.isValid(name) else {
            return .failure(.init("--set \(word): a control's name is lowercase letters, digits and _ (a listing of the controls shows them)"))
        }
        return .success(.init(name: name, value: String(word[word.index(after: equals)...])))
    }

    /// `exposure,focus,white-balance` (any of them).
    public static func locks(_ text: String, option: String) -> Result<[ControlLock], CameraWordsProblem> {
        var locks: [ControlLock] = []
        for word in text.split(separator: ",") {
            guard let lock = ControlLock(rawValue: String(word)) else {
                return .failure(.init("\(option) \(word): give exposure, focus or white-balance (comma-separated)"))
            }
            locks.append(lock)
        }
        return .success(locks)
    }
}

public struct CameraWordsProblem: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
