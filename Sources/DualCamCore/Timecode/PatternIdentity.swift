/// Which camera a synthetic picture belongs to: its node's name and role, drawn as a
/// label beside the DCTC grid and given as a colour to the moving background, so that
/// every file and every layout shows which camera is which.
public struct PatternIdentity: Sendable, Equatable {
    public var name: String
    /// "host", "guest" or "camera" (the command line's words).
    public var role: String

    public init(name: String, role: String) {
        self.name = name
        self.role = role
    }

    /// The background's colour: warm for the host, cool for the guest (opposite hues, so
    /// the two halves of a composite differ even in a thumbnail), and for further cameras
    /// one of four others chosen by the name, so that it is the same on every run.
    public var tint: ChromaTint {
        switch role.lowercased() {
        case "host": return .orange
        case "guest": return .blue
        default: return ChromaTint.others[Int(Self.fnv1a(name) % UInt32(ChromaTint.others.count))]
        }
    }

    /// Not `Hasher`: it is seeded per process, and a camera's colour must not change
    /// from one take to the next.
    static func fnv1a(_ text: String) -> UInt32 {
        text.utf8.reduce(2_166_136_261 as UInt32) { ($0 ^ UInt32($1)) &* 16_777_619 }
    }
}

/// A colour as offsets of Cb and Cr from neutral 128.
public struct ChromaTint: Sendable, Equatable {
    public var cb: Int
    public var cr: Int

    // Directions of saturated RGB colours in the CbCr plane (BT.601), all at about the
    // same strength (radius ≈ 40) so that no camera looks washed out beside another.
    public static let orange = ChromaTint(cb: -32, cr: 25)
    public static let blue = ChromaTint(cb: 31, cr: -25)
    static let others = [ChromaTint(cb: -25, cr: -31),  // green
                         ChromaTint(cb: 25, cr: 31),  // magenta
                         ChromaTint(cb: -39, cr: 10),  // yellow
                         ChromaTint(cb: 36, cr: 17)]  // violet
}
