/// Judges a wanted value for a control before it goes near the driver, and says in one
/// sentence what to do when it cannot be used. Pure: the camera's description comes in.
public enum ControlValueCheck {
    /// Reads a value as a person types it: a number, on/off/true/false for a switch, or a
    /// menu entry's name ("manual_mode", "Manual Mode", "50 Hz" or "50_hz").
    public static func parse(_ text: String, for control: CameraControl) -> Int64? {
        let trimmed = text.trimmingWhitespace
        if let number = Int64(trimmed) { return number }
        let word = normalised(trimmed)
        switch control.kind {
        case .boolean:
            if ["on", "true", "yes", "auto"].contains(word) { return 1 }
            if ["off", "false", "no", "manual"].contains(word) { return 0 }
            return nil
        case .menu, .integerMenu:
            return control.menu.first { normalised($0.name) == word }?.index
        default:
            return nil
        }
    }

    /// nil when `value` can be set; else why not, saying the range (or the entries).
    public static func problem(_ value: Int64, for control: CameraControl, inactiveBecause: String? = nil) -> String? {
        if control.flags.contains(.readOnly) || control.flags.contains(.disabled) {
            return "\(control.name) cannot be changed (the driver marks it \(control.flags.names.joined(separator: ", ")))"
        }
        if control.flags.contains(.inactive) {
            return "\(control.name) has no effect now (the driver marks it inactive)"
                + (inactiveBecause.map { "; \($0)" } ?? "")
        }
        switch control.kind {
        case .button: return nil
        case .menu, .integerMenu:
            if !control.menu.contains(where: { $0.index == value }) {
                return "\(control.name) \(value) is not an entry: \(control.rangeText)"
            }
        case .boolean:
            if value != 0 && value != 1 { return "\(control.name) \(value) is out of range: \(control.rangeText)" }
        default:
            if value < control.minimum || value > control.maximum {
                return "\(control.name) \(value) is out of range: \(control.rangeText)"
            }
        }
        return nil
    }

    /// The sentence for a name the camera does not have: every name it does.
    public static func unknown(_ name: String, among controls: [CameraControl]) -> String {
        let shown = CameraControlNames.isValid(name) ? name : "(a name of letters, digits and _)"
        if controls.isEmpty { return "this camera has no control \(shown); it offers none" }
        return "this camera has no control \(shown); it has: " + controls.map(\.name).joined(separator: ", ")
    }

    static func normalised(_ text: String) -> String {
        CameraControl.stableName(fromLabel: text)
    }
}
