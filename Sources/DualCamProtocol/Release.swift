/// The release of both programs, in one place: `--version`, Hello and HelloAck's
/// `software`, and (later) the packages' version all read it.
public enum Release {
    public static let version = "0.4.0"

    /// What a program says it is on the wire, e.g. "dualcam-agent 0.2.0".
    public static func software(_ program: String) -> String { "\(program) \(version)" }
}
