/// The node's name above the DCTC grid and its role below it, light text on a dark plate
/// in the camera's colour. Rendered once for a frame size (names do not change during a
/// take) and copied into each frame, which costs a few row copies.
///
/// Both lines stay inside the frame's central half, across and down: a source that fills
/// a half-width column (side by side) or a half-height band (stacked) is cropped to that
/// half, and its label must still show there, as the grid does.
public struct PatternLabel: Sendable, Equatable {
    /// One line, ready to copy: luma for every pixel of `rect`, one chroma pair for all.
    /// `rect` has even position and size, so its chroma samples cover only its pixels.
    public struct Plate: Sendable, Equatable {
        public let rect: PixelRect
        /// Font pixel size in frame pixels; cap height is 7 of them.
        public let scale: Int
        let luma: [UInt8]
        let cb: UInt8
        let cr: UInt8
    }

    public static let textLuma: UInt8 = 235
    public static let plateLuma: UInt8 = 32

    public let width: Int
    public let height: Int
    public let plates: [Plate]

    /// Empty (no plates) where a frame is too small for even a 1-pixel font.
    public init(identity: PatternIdentity, width: Int, height: Int) {
        self.width = width
        self.height = height
        let grid = DCTC.Geometry(width: width, height: height)
        guard grid.cellWidth > 0, grid.cellHeight > 0 else {
            plates = []
            return
        }
        let tint = identity.tint
        let colour = (cb: UInt8(128 + tint.cb), cr: UInt8(128 + tint.cr))
        // Clear of the grid by a margin that keeps the plate's chroma off the grid's too.
        let margin = Self.even(up: max(2, height / 60))
        let safeTop = height / 4, safeBottom = height - height / 4
        let gridBottom = grid.originY + grid.gridHeight
        // Cap height about a tenth of the frame, as far as the band and the width allow.
        let wanted = max(1, (height + 35) / 70)
        // Even edges all round: an even plate that fits the span stays inside it. Across,
        // the grid's columns are the frame's central half.
        let left = Self.even(up: grid.originX), right = (grid.originX + grid.gridWidth) & ~1
        let nameBottom = (grid.originY - margin) & ~1, roleTop = Self.even(up: gridBottom + margin)
        var plates: [Plate] = []
        if let name = Self.layout(identity.name, wanted: wanted, maxWidth: right - left,
                                  bandHeight: nameBottom - Self.even(up: safeTop)) {
            plates.append(Self.plate(name, left: left, right: right, top: nameBottom - name.height, colour: colour))
        }
        if let role = Self.layout(identity.role, wanted: wanted, maxWidth: right - left,
                                  bandHeight: (safeBottom & ~1) - roleTop) {
            plates.append(Self.plate(role, left: left, right: right, top: roleTop, colour: colour))
        }
        self.plates = plates
    }

    /// Copies the plates into `image`, which must have the size the label was made for.
    public func draw(into image: inout YUV420Image) {
        precondition(image.width == width && image.height == height, "a label is made for one picture size")
        let lumaStride = image.lumaStride, chromaStride = image.chromaStride
        for plate in plates {
            let r = plate.rect
            plate.luma.withUnsafeBufferPointer { src in
                image.y.withUnsafeMutableBufferPointer { dst in
                    for row in 0..<r.height {
                        (dst.baseAddress! + (r.y + row) * lumaStride + r.x)
                            .update(from: src.baseAddress! + row * r.width, count: r.width)
                    }
                }
            }
            Self.fill(&image.cb, stride: chromaStride, rect: r, with: plate.cb)
            Self.fill(&image.cr, stride: chromaStride, rect: r, with: plate.cr)
        }
    }

    /// The chroma samples of the even-aligned luma rectangle `r`.
    private static func fill(_ plane: inout [UInt8], stride: Int, rect r: PixelRect, with value: UInt8) {
        plane.withUnsafeMutableBufferPointer { dst in
            for row in (r.y / 2)..<((r.y + r.height) / 2) {
                (dst.baseAddress! + row * stride + r.x / 2).update(repeating: value, count: r.width / 2)
            }
        }
    }

    /// A line's text (cut to what fits at the smallest size), its scale and plate size.
    private struct Line {
        let text: String
        let scale: Int
        let width: Int
        let height: Int
    }

    /// The plate is the text plus one font pixel of padding all round.
    private static func layout(_ text: String, wanted: Int, maxWidth: Int, bandHeight: Int) -> Line? {
        let fitting = max(0, (maxWidth - 2) / BitmapFont.advance)  // characters at scale 1
        let shown = String(text.prefix(fitting))
        guard !shown.isEmpty else { return nil }
        let units = (width: BitmapFont.width(characters: shown.count) + 2, height: BitmapFont.glyphHeight + 2)
        let scale = min(wanted, maxWidth / units.width, bandHeight / units.height)
        guard scale >= 1 else { return nil }
        return Line(text: shown, scale: scale, width: even(up: units.width * scale), height: even(up: units.height * scale))
    }

    /// Centred between the even columns `left` and `right`.
    private static func plate(_ line: Line, left: Int, right: Int, top: Int, colour: (cb: UInt8, cr: UInt8)) -> Plate {
        let mask = BitmapFont.mask(line.text)
        let s = line.scale
        var luma = [UInt8](repeating: plateLuma, count: line.width * line.height)
        for my in 0..<mask.height {
            for mx in 0..<mask.width where mask.bits[my * mask.width + mx] {
                for dy in 0..<s {
                    let row = (s + my * s + dy) * line.width + s + mx * s
                    for dx in 0..<s { luma[row + dx] = textLuma }
                }
            }
        }
        let rect = PixelRect(x: left + (((right - left - line.width) / 2) & ~1), y: top, width: line.width, height: line.height)
        return Plate(rect: rect, scale: s, luma: luma, cb: colour.cb, cr: colour.cr)
    }

    private static func even(up n: Int) -> Int { (n + 1) & ~1 }
}
