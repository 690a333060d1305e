/// The DualCam timecode pattern, version 1, exactly as `TIMECODE.md` defines it.
///
/// Everything here is integer arithmetic on the frame's own geometry so that any outside
/// reader (numpy, a screenshot) gets bit-identical cell positions from the written spec.
public enum DCTC {
    /// Units of the code: 100 µs.
    public static let tickNanoseconds: Int64 = 100_000
    public static let oneLuma: UInt8 = 235
    public static let zeroLuma: UInt8 = 16
    /// Decision level of the reader; mid-way between the two levels, a little low so
    /// that encoder ringing on a white cell does not flip it.
    public static let threshold = 125

    /// `floor(g / 100 µs) mod 2^32` for the true capture instant `g`.
    public static func code(trueNanoseconds g: Int64) -> UInt32 {
        var q = g / tickNanoseconds
        if g % tickNanoseconds != 0 && g < 0 { q -= 1 }  // Swift division truncates; the spec floors
        return UInt32(truncatingIfNeeded: q)
    }

    /// Signed true difference `a - b` between two codes' instants, exact to 100 µs as
    /// long as the instants are within ±2^31 ticks (about 2.5 days) of each other.
    public static func differenceNanoseconds(_ a: UInt32, _ b: UInt32) -> Int64 {
        Int64(Int32(bitPattern: a &- b)) * tickNanoseconds
    }

    /// Cell size and grid origin for a `width x height` frame.
    public struct Geometry: Sendable, Equatable {
        public let cellWidth: Int
        public let cellHeight: Int
        public let originX: Int
        public let originY: Int

        public init(width: Int, height: Int) {
            cellWidth = width / 32
            cellHeight = height / 16
            originX = (width - 16 * cellWidth) / 2
            originY = (height - 2 * cellHeight) / 2
        }

        public var gridWidth: Int { 16 * cellWidth }
        public var gridHeight: Int { 2 * cellHeight }

        /// Top-left pixel of bit `b` (0 = most significant).
        public func cellOrigin(bit b: Int) -> (x: Int, y: Int) {
            (originX + (b % 16) * cellWidth, originY + (b / 16) * cellHeight)
        }
    }

    /// Burns `code` into the centre of `image`, replacing the grid area entirely
    /// (luma per bit, chroma neutral) so that nothing of the picture leaks into a cell.
    public static func draw(_ code: UInt32, into image: inout YUV420Image) {
        let g = Geometry(width: image.width, height: image.height)
        guard g.cellWidth > 0, g.cellHeight > 0 else { return }
        let stride = image.lumaStride
        image.y.withUnsafeMutableBufferPointer { luma in
            for b in 0..<32 {
                let value = (code >> UInt32(31 - b)) & 1 == 1 ? oneLuma : zeroLuma
                let (cx, cy) = g.cellOrigin(bit: b)
                for row in cy..<(cy + g.cellHeight) {
                    let start = row * stride + cx
                    for i in start..<(start + g.cellWidth) { luma[i] = value }
                }
            }
        }
        // Every chroma sample that covers any grid pixel, so odd origins stay neutral too.
        let cx0 = g.originX / 2, cx1 = min((g.originX + g.gridWidth - 1) / 2, image.chromaWidth - 1)
        let cy0 = g.originY / 2, cy1 = min((g.originY + g.gridHeight - 1) / 2, image.chromaHeight - 1)
        let cstride = image.chromaStride
        image.cb.withUnsafeMutableBufferPointer { cb in
            image.cr.withUnsafeMutableBufferPointer { cr in
                for row in cy0...cy1 {
                    let start = row * cstride
                    for i in (start + cx0)...(start + cx1) {
                        cb[i] = 128
                        cr[i] = 128
                    }
                }
            }
        }
    }

    /// Reads the code of a frame that is exactly the source picture.
    public static func read(_ image: YUV420Image) -> UInt32 {
        let g = Geometry(width: image.width, height: image.height)
        guard g.cellWidth > 0, g.cellHeight > 0 else { return 0 }
        var code: UInt32 = 0
        for b in 0..<32 {
            let (cx, cy) = g.cellOrigin(bit: b)
            // Central half: skip a quarter on each side.
            let x0 = cx + g.cellWidth / 4, x1 = cx + g.cellWidth - g.cellWidth / 4
            let y0 = cy + g.cellHeight / 4, y1 = cy + g.cellHeight - g.cellHeight / 4
            code = code << 1 | bit(image, x0..<x1, y0..<y1)
        }
        return code
    }

    /// Reads the code of a `sourceWidth x sourceHeight` frame that a compositor scaled to
    /// cover `slot` (scale `s = max(slot.w/W, slot.h/H)`) and cropped centred.
    public static func read(_ image: YUV420Image, slot: PixelRect, sourceWidth: Int, sourceHeight: Int) -> UInt32 {
        guard slot.width > 0, slot.height > 0 else { return 0 }
        let s = max(Double(slot.width) / Double(sourceWidth), Double(slot.height) / Double(sourceHeight))
        // Source coordinate u lands at slotCentre + (u - W/2)*s; cropping is symmetric.
        let centreX = Double(slot.x) + Double(slot.width) / 2
        let centreY = Double(slot.y) + Double(slot.height) / 2
        return read(image, sourceWidth: sourceWidth, sourceHeight: sourceHeight, scaleX: s, scaleY: s) { u, v in
            (centreX + (u - Double(sourceWidth) / 2) * s, centreY + (v - Double(sourceHeight) / 2) * s)
        }
    }

    /// Reads the code of a `sourceWidth x sourceHeight` frame drawn in a composite as
    /// `placement` says (`LayoutGeometry.placement`): filled with any anchor, or fitted.
    public static func read(_ image: YUV420Image, placement: Placement, sourceWidth: Int, sourceHeight: Int) -> UInt32 {
        guard placement.crop.width > 0, placement.crop.height > 0 else { return 0 }
        return read(image, sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                    scaleX: placement.horizontalScale, scaleY: placement.verticalScale) { u, v in
            placement.outputPoint(sourceX: u, sourceY: v)
        }
    }

    /// The central half of each cell, found by mapping the cell's source origin into the
    /// composite.
    private static func read(_ image: YUV420Image, sourceWidth: Int, sourceHeight: Int, scaleX: Double, scaleY: Double,
                             map: (Double, Double) -> (x: Double, y: Double)) -> UInt32 {
        let g = Geometry(width: sourceWidth, height: sourceHeight)
        guard g.cellWidth > 0, g.cellHeight > 0 else { return 0 }
        let cw = Double(g.cellWidth) * scaleX, ch = Double(g.cellHeight) * scaleY
        var code: UInt32 = 0
        for b in 0..<32 {
            let (ux, uy) = g.cellOrigin(bit: b)
            let (left, top) = map(Double(ux), Double(uy))
            let xs = pixelCentres(from: left + cw / 4, to: left + cw * 3 / 4, limit: image.width)
            let ys = pixelCentres(from: top + ch / 4, to: top + ch * 3 / 4, limit: image.height)
            code = code << 1 | bit(image, xs, ys)
        }
        return code
    }

    /// Pixels whose centres lie in `[a, b)`, at least the one holding the midpoint.
    private static func pixelCentres(from a: Double, to b: Double, limit: Int) -> Range<Int> {
        var lo = Int((a - 0.5).rounded(.up))
        var hi = Int((b - 0.5).rounded(.up))
        if hi <= lo {
            lo = Int(((a + b) / 2).rounded(.down))
            hi = lo + 1
        }
        // A cell off the picture (a reader told a scale larger than the frame's) is empty,
        // never an inverted range.
        let lower = min(max(lo, 0), limit)
        return lower..<max(lower, min(hi, limit))
    }

    private static func bit(_ image: YUV420Image, _ xs: Range<Int>, _ ys: Range<Int>) -> UInt32 {
        guard !xs.isEmpty, !ys.isEmpty else { return 0 }
        var sum = 0
        image.y.withUnsafeBufferPointer { luma in
            for row in ys {
                let base = row * image.lumaStride
                for x in xs { sum += Int(luma[base + x]) }
            }
        }
        return sum > threshold * xs.count * ys.count ? 1 : 0
    }
}
