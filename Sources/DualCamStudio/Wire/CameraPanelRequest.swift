import DualCamCore

/// The body of `POST /api/cameras/N` (docs/STUDIO.md): what a camera's panel asks, the
/// same things the terminal's `camera` words ask. The browser is not trusted: every field
/// is checked here, before anything reaches the rig, and a body that fails a check is
/// refused whole (400), changing nothing.
struct CameraPanelRequest: Decodable {
    struct Setting: Decodable {
        var name: String
        var value: SettingValue
    }

    struct Zoom: Decodable {
        var factor: Double
        var rampSeconds: Double?
        var centreX: Double?
        var centreY: Double?
    }

    var set: [Setting]?
    var zoom: Zoom?
    var lock: [String]?
    var unlock: [String]?
    var lockDuringTakes: Bool?
    /// Copy this camera's (an index in the state's `agents`) exposure, gain and white balance.
    var matchFrom: Int?

    /// More than a panel ever sends at once, fewer than the agent answers for (`CameraWire.maxResults`).
    static let maxSettings = 32
    /// A value is a number, on/off or a menu entry's name: 64 bytes is plenty (§10's limit for a name).
    static let maxValueBytes = 64

    func change() throws(StudioError) -> CameraChange {
        var change = CameraChange()
        let settings = set ?? []
        guard settings.count <= Self.maxSettings else {
            throw .bad("set has \(settings.count) entries; at most \(Self.maxSettings) at once")
        }
        for setting in settings {
            guard CameraControlNames.isValid(setting.name) else {
                throw .bad("a control's name is lowercase letters, digits and _, at most \(CameraControlNames.maxLength) "
                    + "(GET /api/cameras lists them)")
            }
            let value = setting.value.text
            guard value.utf8.count <= Self.maxValueBytes,
                  value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7f }) else {
                throw .bad("\(setting.name): a value is a number, on/off or a menu entry's name (printable, at most \(Self.maxValueBytes) bytes)")
            }
            change.settings.append(.init(name: setting.name, value: value))
        }
        if let zoom {
            let ramp = zoom.rampSeconds ?? 0
            if let problem = ZoomRamp.problem(factor: zoom.factor, rampSeconds: ramp) { throw .bad(problem) }
            guard let centre = ZoomPoint(x: zoom.centreX ?? 0.5, y: zoom.centreY ?? 0.5) else {
                throw .bad("the zoom's centre is centreX and centreY, each between 0 and 1 (0.5, 0.5 is the middle)")
            }
            change.zoom = .init(factor: zoom.factor, centre: centre, rampNanoseconds: Int64(ramp * 1e9))
        }
        change.lock = try Self.locks(lock, "lock")
        change.unlock = try Self.locks(unlock, "unlock")
        change.lockDuringTakes = lockDuringTakes
        return change
    }

    private static func locks(_ words: [String]?, _ field: String) throws(StudioError) -> [ControlLock] {
        var locks: [ControlLock] = []
        for word in words ?? [] {
            guard let lock = ControlLock(rawValue: word) else {
                throw .bad("\(field) takes exposure, focus or white-balance")
            }
            if !locks.contains(lock) { locks.append(lock) }
        }
        return locks
    }
}

/// A control's value as JSON gives it: a whole number, true or false (a switch), or a
/// string (a menu entry's name, on/off), passed on as the words the terminal would type.
struct SettingValue: Decodable {
    let text: String

    init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if let flag = try? single.decode(Bool.self) {
            text = flag ? "1" : "0"
        } else if let number = try? single.decode(Int64.self) {
            text = String(number)
        } else if let words = try? single.decode(String.self) {
            text = words
        } else {
            throw DecodingError.typeMismatch(String.self, .init(
                codingPath: decoder.codingPath, debugDescription: "a value is a whole number, true/false or a string"))
        }
    }
}
