/// "Match": the settings that give other cameras one camera's exposure, gain and white
/// balance, and what cannot be matched. Pure; the coordinator asks, the agents apply.
public enum ControlMatch {
    /// What is copied, in this order; the automatic modes go off where a value is copied.
    static let copied = ["exposure_time_absolute", "exposure", "gain", "white_balance_temperature"]

    public struct Plan: Sendable, Equatable {
        public var settings: [ControlLock.Step]
        /// One sentence per value that could not be copied.
        public var unmatched: [String]
    }

    public static func plan(from source: [CameraControl], sourceName: String, to target: [CameraControl]) -> Plan {
        var settings: [ControlLock.Step] = []
        var unmatched: [String] = []
        var modesOff = Set<String>()
        for name in copied {
            guard let from = source.first(where: { $0.name == name }), let value = from.value else { continue }
            guard let to = target.first(where: { $0.name == name }) else {
                unmatched.append("\(name): this camera has no such control")
                continue
            }
            guard value >= to.minimum, value <= to.maximum else {
                unmatched.append("\(name): \(sourceName)'s \(value) is outside this camera's \(to.rangeText)")
                continue
            }
            for lock in ControlLock.allCases where lock.pinned.contains(name) {
                for mode in lock.automatic where target.contains(where: { $0.name == mode.name }) && !modesOff.contains(mode.name) {
                    modesOff.insert(mode.name)
                    settings.append(.init(name: mode.name, value: mode.manual))
                }
            }
            settings.append(.init(name: name, value: value))
        }
        if settings.isEmpty && unmatched.isEmpty {
            unmatched.append("\(sourceName) offers no exposure, gain or white balance value to copy")
        }
        // Modes first, then values, each in the order found.
        let modes = settings.filter { ControlLock.isAutomaticMode($0.name) }
        return Plan(settings: modes + settings.filter { !ControlLock.isAutomaticMode($0.name) }, unmatched: unmatched)
    }
}
