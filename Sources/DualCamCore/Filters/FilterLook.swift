/// A look's full-strength parameters, in normalised luma (0 = Y 16, 1 = Y 235) and in
/// chroma code values around 128. Only used to build tables, never per pixel.
struct FilterLook {
    /// Mid-tone contrast of the S-curve: slope at mid-grey is 1 + sCurve/2; ≤ 1 keeps it
    /// monotonic.
    var sCurve = 0.0
    /// Pulls the shadows down after the S-curve: s − k·s·(1−s)²; monotonic for k < 1.
    var shadowCrush = 0.0
    /// Output range the curve is squeezed into: lifted blacks, lowered whites.
    var black = 0.0
    var white = 1.0
    /// Chroma: scale, then rotation (degrees, positive turns red toward yellow), then offset.
    var saturation = 1.0
    var hueDegrees = 0.0
    var cbOffset = 0.0
    var crOffset = 0.0

    static func of(_ kind: FilterKind) -> FilterLook {
        switch kind {
        case .none: return FilterLook()
        case .vivid: return FilterLook(sCurve: 0.3, saturation: 1.4)
        case .dramatic: return FilterLook(sCurve: 0.8, shadowCrush: 0.3, saturation: 0.8)
        case .cool: return FilterLook(cbOffset: 12, crOffset: -8)
        case .warm: return FilterLook(cbOffset: -12, crOffset: 10)
        case .blackAndWhite: return FilterLook(sCurve: 0.2, saturation: 0)
        case .sepia: return FilterLook(sCurve: 0.1, black: 0.06, white: 0.92, saturation: 0, cbOffset: -15, crOffset: 13)
        case .cinematic:
            return FilterLook(sCurve: 0.4, black: 0.05, white: 0.95, saturation: 0.9, hueDegrees: 8,
                              cbOffset: 3, crOffset: -3)
        }
    }

    var changesTone: Bool { sCurve != 0 || shadowCrush != 0 || black != 0 || white != 1 }

    /// The tone curve on normalised luma.
    func luma(_ n: Double) -> Double {
        let x = min(max(n, 0), 1)
        let s = x + sCurve * x * (1 - x) * (2 * x - 1)
        let g = s - shadowCrush * s * (1 - s) * (1 - s)
        return black + (white - black) * g
    }

    /// The chroma matrix [[a, b], [c, d]] acting on (Cb − 128, Cr − 128).
    var chromaMatrix: (a: Double, b: Double, c: Double, d: Double) {
        let sin = Sinusoid.sin(turns: hueDegrees / 360), cos = Sinusoid.cos(turns: hueDegrees / 360)
        // In the (Cb, Cr) plane red lies near +Cr and yellow near −Cb, so turning red
        // toward yellow is a counter-clockwise rotation.
        return (saturation * cos, -saturation * sin, saturation * sin, saturation * cos)
    }
}
