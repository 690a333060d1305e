/// The precomputed coverage of a picture-in-picture window: rounded corners, border and
/// shadow as integer weights, so that drawing a frame is copies plus a few thousand
/// integer blends. Built once per geometry; colours are applied at draw time, so
/// changing the border colour needs no rebuild.
struct InsetMask {
    /// What identifies a mask: the window's place and the options that shape it.
    struct Key: Hashable {
        var rect: PixelRect
        var borderWidth: Int
        var cornerRadius: Int
        var shadow: Bool
    }

    /// One pixel on the window's edge. Weights are out of 256; the rest is the picture
    /// underneath the window.
    struct EdgeTap {
        var x: Int32
        var picture: UInt16
        var border: UInt16
    }

    /// One pixel darkened by the shadow, by `weight`/256, at `offset` in the output plane.
    struct ShadowTap {
        var offset: Int32
        var weight: UInt16
    }

    /// The mask at one plane's resolution, in that plane's coordinates.
    struct Plane {
        var originX = 0
        var originY = 0
        var width = 0
        var height = 0
        /// Per row: the run of pixels that are entirely picture, copied as a block.
        var copyStart: [Int] = []
        var copyEnd: [Int] = []
        /// Per row: taps[tapStart[row] ..< tapStart[row + 1]] are the blended pixels.
        var tapStart: [Int] = [0]
        var taps: [EdgeTap] = []
        var shadow: [ShadowTap] = []
        /// One past the largest shadow offset, checked against the plane once per draw.
        var shadowEnd: Int { shadow.last.map { Int($0.offset) + 1 } ?? 0 }
    }

    let luma: Plane
    let chroma: Plane

    /// Shadow shape relative to the window: offset down-right and blur radius, in luma
    /// pixels, scaled with the window so it looks the same at every size.
    static func shadowGeometry(windowWidth: Int) -> (offset: Int, blur: Int) {
        (max(2, windowWidth / 60), max(4, windowWidth / 30))
    }

    static let shadowOpacity = 0.5

    init(key: Key, outputWidth: Int, outputHeight: Int) {
        let rect = key.rect
        let w = rect.width, h = rect.height
        let radius = min(key.cornerRadius, min(w, h) / 2)
        let border = min(key.borderWidth, min(w, h) / 2)

        // Coverage at luma resolution from the signed distance at each pixel centre:
        // a pixel half a pixel inside the edge is fully in, and the edge pixels of the
        // curves get fractional weights, which is what makes them antialiased.
        var shape = [Int](repeating: 0, count: w * h)
        var inner = [Int](repeating: 0, count: w * h)
        let halfW = Double(w) / 2, halfH = Double(h) / 2
        for row in 0..<h {
            for col in 0..<w {
                let px = Double(col) + 0.5 - halfW, py = Double(row) + 0.5 - halfH
                let outer = InsetMask.distance(px, py, halfW: halfW, halfH: halfH, radius: Double(radius))
                let inside = InsetMask.distance(px, py, halfW: halfW - Double(border), halfH: halfH - Double(border),
                                                radius: Double(max(0, radius - border)))
                let s = InsetMask.weight(0.5 - outer)
                shape[row * w + col] = s
                inner[row * w + col] = min(s, InsetMask.weight(0.5 - inside))
            }
        }
        // Chroma weights are the mean of the 2x2 luma weights they cover, so luma and
        // chroma edges coincide.
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        let chromaShape = InsetMask.halve(shape, width: w, height: h)
        let chromaInner = InsetMask.halve(inner, width: w, height: h)

        var luma = InsetMask.plane(shape: shape, inner: inner, width: w, height: h, x: rect.x, y: rect.y)
        var chroma = InsetMask.plane(shape: chromaShape, inner: chromaInner, width: cw, height: ch,
                                     x: rect.x / 2, y: rect.y / 2)
        if key.shadow {
            let (offset, blur) = InsetMask.shadowGeometry(windowWidth: w)
            let alpha = ShadowField(rect: rect, radius: radius, offset: offset, blur: blur)
            let x0 = max(0, rect.x + offset - blur) & ~1, y0 = max(0, rect.y + offset - blur) & ~1
            let x1 = min(outputWidth, rect.x + w + offset + blur), y1 = min(outputHeight, rect.y + h + offset + blur)
            for y in y0..<y1 {
                for x in x0..<x1 {
                    let a = alpha.weight(x, y)
                    if a > 0 && !InsetMask.opaque(shape, w, h, x - rect.x, y - rect.y) {
                        luma.shadow.append(ShadowTap(offset: Int32(y * outputWidth + x), weight: UInt16(a)))
                    }
                }
            }
            let chromaStride = (outputWidth + 1) / 2
            for cy in (y0 / 2)..<((y1 + 1) / 2) {
                for cx in (x0 / 2)..<((x1 + 1) / 2) {
                    var sum = 0, n = 0
                    for y in (2 * cy)..<min(2 * cy + 2, outputHeight) {
                        for x in (2 * cx)..<min(2 * cx + 2, outputWidth) {
                            sum += alpha.weight(x, y)
                            n += 1
                        }
                    }
                    let a = (sum + n / 2) / n
                    if a > 0 && !InsetMask.opaque(chromaShape, cw, ch, cx - rect.x / 2, cy - rect.y / 2) {
                        chroma.shadow.append(ShadowTap(offset: Int32(cy * chromaStride + cx), weight: UInt16(a)))
                    }
                }
            }
        }
        self.luma = luma
        self.chroma = chroma
    }

    /// Signed distance from a point (relative to the centre) to a rounded rectangle.
    private static func distance(_ px: Double, _ py: Double, halfW: Double, halfH: Double, radius: Double) -> Double {
        let qx = abs(px) - (halfW - radius), qy = abs(py) - (halfH - radius)
        let ox = max(qx, 0), oy = max(qy, 0)
        return (ox * ox + oy * oy).squareRoot() + min(max(qx, qy), 0) - radius
    }

    private static func weight(_ coverage: Double) -> Int {
        Int((min(max(coverage, 0), 1) * 256).rounded())
    }

    private static func halve(_ weights: [Int], width: Int, height: Int) -> [Int] {
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        var out = [Int](repeating: 0, count: cw * ch)
        for cy in 0..<ch {
            for cx in 0..<cw {
                var sum = 0, n = 0
                for y in (2 * cy)..<min(2 * cy + 2, height) {
                    for x in (2 * cx)..<min(2 * cx + 2, width) {
                        sum += weights[y * width + x]
                        n += 1
                    }
                }
                out[cy * cw + cx] = (sum + n / 2) / n
            }
        }
        return out
    }

    private static func opaque(_ shape: [Int], _ w: Int, _ h: Int, _ x: Int, _ y: Int) -> Bool {
        x >= 0 && y >= 0 && x < w && y < h && shape[y * w + x] == 256
    }

    private static func plane(shape: [Int], inner: [Int], width: Int, height: Int, x: Int, y: Int) -> Plane {
        var plane = Plane(originX: x, originY: y, width: width, height: height)
        for row in 0..<height {
            // The longest run of pure picture is copied; every other covered pixel blends.
            var best = (start: 0, end: 0), runStart = -1
            for col in 0...width {
                let full = col < width && inner[row * width + col] == 256
                if full && runStart < 0 { runStart = col }
                if !full && runStart >= 0 {
                    if col - runStart > best.end - best.start { best = (runStart, col) }
                    runStart = -1
                }
            }
            plane.copyStart.append(best.start)
            plane.copyEnd.append(best.end)
            for col in 0..<width where (col < best.start || col >= best.end) && shape[row * width + col] > 0 {
                let s = shape[row * width + col], p = inner[row * width + col]
                plane.taps.append(EdgeTap(x: Int32(col), picture: UInt16(p), border: UInt16(s - p)))
            }
            plane.tapStart.append(plane.taps.count)
        }
        return plane
    }
}

/// The soft shadow's opacity at an output pixel: the window's shape moved by `offset`,
/// fading with a smoothstep from `blur` inside its edge to `blur` outside.
private struct ShadowField {
    let centreX: Double, centreY: Double, halfW: Double, halfH: Double, radius: Double, blur: Double

    init(rect: PixelRect, radius: Int, offset: Int, blur: Int) {
        centreX = Double(rect.x + offset) + Double(rect.width) / 2
        centreY = Double(rect.y + offset) + Double(rect.height) / 2
        halfW = Double(rect.width) / 2
        halfH = Double(rect.height) / 2
        self.radius = Double(radius)
        self.blur = Double(blur)
    }

    func weight(_ x: Int, _ y: Int) -> Int {
        let qx = abs(Double(x) + 0.5 - centreX) - (halfW - radius)
        let qy = abs(Double(y) + 0.5 - centreY) - (halfH - radius)
        let ox = max(qx, 0), oy = max(qy, 0)
        let d = (ox * ox + oy * oy).squareRoot() + min(max(qx, qy), 0) - radius
        let t = min(max((blur - d) / (2 * blur), 0), 1)
        return Int((InsetMask.shadowOpacity * t * t * (3 - 2 * t) * 256).rounded())
    }
}
