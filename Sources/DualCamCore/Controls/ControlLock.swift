/// What "lock exposure" (focus, white balance) means on a V4L2 camera: switch its
/// automatic mode off and pin the values the automatic mode had chosen, read before the
/// switch. Pure: plans the settings from the camera's description; the agent applies them.
public enum ControlLock: String, Sendable, Hashable, CaseIterable {
    case exposure
    case focus
    case whiteBalance = "white-balance"

    /// Automatic modes, each with its value meaning "manual".
    var automatic: [(name: String, manual: Int64)] {
        switch self {
        // auto_exposure's menu: 0 auto, 1 manual, 2 shutter priority, 3 aperture priority.
        case .exposure: [("auto_exposure", 1), ("gain_automatic", 0)]
        case .focus: [("focus_automatic_continuous", 0)]
        case .whiteBalance: [("white_balance_automatic", 0)]
        }
    }

    /// What the automatic mode sets, pinned at the value it had.
    var pinned: [String] {
        switch self {
        case .exposure: ["exposure_time_absolute", "exposure", "gain"]
        case .focus: ["focus_absolute"]
        case .whiteBalance: ["white_balance_temperature"]
        }
    }

    public var pinnedNames: [String] { pinned }

    /// The automatic-mode controls of every lock: set before anything they govern.
    public static func isAutomaticMode(_ name: String) -> Bool {
        allCases.contains { $0.automatic.contains { $0.name == name } }
    }

    /// The control whose automatic mode makes `name` inactive, present on this camera.
    public static func governor(of name: String, in controls: [CameraControl]) -> String? {
        for lock in allCases where lock.pinned.contains(name) {
            if let mode = lock.automatic.first(where: { mode in controls.contains { $0.name == mode.name } }) { return mode.name }
        }
        return nil
    }

    public struct Plan: Sendable, Equatable {
        /// In order: the automatic modes off, then the pinned values.
        public var steps: [Step]
        /// The automatic modes' values before the lock, to go back to at release.
        public var previous: [String: Int64]
    }

    public struct Step: Sendable, Hashable {
        public var name: String
        public var value: Int64
        public init(name: String, value: Int64) {
            self.name = name
            self.value = value
        }
    }

    /// The lock's settings for this camera, or why it has nothing to lock.
    public func plan(_ controls: [CameraControl]) -> Result<Plan, LockProblem> {
        let byName = Dictionary(controls.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let modes = automatic.filter { byName[$0.name] != nil }
        guard !modes.isEmpty else {
            return .failure(LockProblem("this camera has no automatic \(words) to lock (it offers no "
                + automatic.map(\.name).joined(separator: " or ") + "); its \(words) stays as it is"))
        }
        var steps: [Step] = []
        var previous: [String: Int64] = [:]
        for mode in modes {
            let control = byName[mode.name]!
            if let value = control.value { previous[mode.name] = value }
            steps.append(Step(name: mode.name, value: mode.manual))
        }
        for name in pinned {
            if let value = byName[name]?.value { steps.append(Step(name: name, value: value)) }
        }
        return .success(Plan(steps: steps, previous: previous))
    }

    /// The automatic modes back on: as they were before the lock, else the driver's default.
    public func release(_ controls: [CameraControl], previous: [String: Int64]) -> [Step] {
        automatic.compactMap { mode in
            guard let control = controls.first(where: { $0.name == mode.name }) else { return nil }
            var value = previous[mode.name] ?? control.defaultValue
            // A default that is itself manual (some drivers) would release nothing: pick auto.
            if value == mode.manual { value = mode.manual == 0 ? 1 : (control.menu.first { $0.index != mode.manual }?.index ?? 0) }
            return Step(name: mode.name, value: value)
        }
    }

    public var words: String {
        switch self {
        case .exposure: "exposure"
        case .focus: "focus"
        case .whiteBalance: "white balance"
        }
    }
}

public struct LockProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
