/// The compositor's per-frame loops over one 8-bit plane. Bounds are checked once per
/// call; the inner loops run on raw pointers because they touch every output pixel.
enum PlaneDrawing {
    /// Copies a `rect`-sized picture to `rect` of the output.
    static func copy(_ source: [UInt8], stride: Int, into output: UnsafeMutableBufferPointer<UInt8>,
                     stride outputStride: Int, rect: PixelRect) {
        guard rect.width > 0 && rect.height > 0 else { return }
        precondition(source.count >= (rect.height - 1) * stride + rect.width, "picture plane too small")
        precondition(rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= outputStride
                     && (rect.y + rect.height - 1) * outputStride + rect.x + rect.width <= output.count,
                     "slot \(rect) outside the output")
        source.withUnsafeBufferPointer { src in
            let s = src.baseAddress!, d = output.baseAddress!
            for row in 0..<rect.height {
                (d + (rect.y + row) * outputStride + rect.x).update(from: s + row * stride, count: rect.width)
            }
        }
    }

    /// Draws a picture-in-picture window: darkens the shadow first, then copies the
    /// window's interior and blends its edge pixels between the picture beneath, the
    /// border colour and the window's picture.
    static func drawInset(_ source: [UInt8], stride: Int, into output: UnsafeMutableBufferPointer<UInt8>,
                          stride outputStride: Int, mask: InsetMask.Plane, borderValue: UInt8, shadowNeutral: Int) {
        guard mask.width > 0 && mask.height > 0 else { return }
        precondition(source.count >= (mask.height - 1) * stride + mask.width, "picture plane too small")
        precondition(mask.originX + mask.width <= outputStride
                     && (mask.originY + mask.height - 1) * outputStride + mask.originX + mask.width <= output.count,
                     "window outside the output")
        precondition(mask.shadowEnd <= output.count, "shadow outside the output")
        let d = output.baseAddress!
        mask.shadow.withUnsafeBufferPointer { taps in
            for tap in taps {
                let i = Int(tap.offset)
                let p = Int(d[i])
                d[i] = UInt8(truncatingIfNeeded: p - (((p - shadowNeutral) * Int(tap.weight) + 128) >> 8))
            }
        }
        let border = Int(borderValue)
        source.withUnsafeBufferPointer { src in
            mask.taps.withUnsafeBufferPointer { taps in
                let s = src.baseAddress!
                for row in 0..<mask.height {
                    let dRow = d + (mask.originY + row) * outputStride + mask.originX
                    let sRow = s + row * stride
                    let start = mask.copyStart[row], end = mask.copyEnd[row]
                    if end > start { (dRow + start).update(from: sRow + start, count: end - start) }
                    for k in mask.tapStart[row]..<mask.tapStart[row + 1] {
                        let tap = taps[k]
                        let x = Int(tap.x), p = Int(tap.picture), b = Int(tap.border)
                        let mixed = Int(dRow[x]) * (256 - p - b) + border * b + Int(sRow[x]) * p + 128
                        dRow[x] = UInt8(truncatingIfNeeded: mixed >> 8)
                    }
                }
            }
        }
    }
}
