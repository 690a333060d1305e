extension Dualcam_V1_Role {
    /// The word used on command lines, in TXT records and in manifests.
    public var name: String {
        switch self {
        case .host: "host"
        case .guest: "guest"
        default: "camera"
        }
    }

    public init?(name: String) {
        switch name.lowercased() {
        case "host": self = .host
        case "guest": self = .guest
        case "camera": self = .camera
        default: return nil
        }
    }
}
