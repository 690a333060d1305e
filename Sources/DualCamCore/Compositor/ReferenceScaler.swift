/// A plain, exact, slow scaler for tests and for tools without libswscale.
///
/// Separable triangle filter: plain bilinear when enlarging; when reducing, the triangle
/// is widened to the reduction factor so every source pixel contributes (an area average
/// that does not alias). Integer weights summing to 2^14 per output sample keep results
/// identical on every platform, which the golden checksums rely on.
public final class ReferenceScaler: Scaler {
    public init() {}

    public func scale(_ source: YUV420Image, crop: PixelRect, toWidth width: Int, height: Int) -> YUV420Image {
        precondition(width > 0 && height > 0, "target size must be positive")
        precondition(crop.x >= 0 && crop.y >= 0 && crop.width > 0 && crop.height > 0
                     && crop.x + crop.width <= source.width && crop.y + crop.height <= source.height,
                     "crop \(crop) is outside the \(source.width)x\(source.height) source")
        let y = Self.resample(source.y, stride: source.lumaStride,
                              x: crop.x, y: crop.y, width: crop.width, height: crop.height,
                              toWidth: width, toHeight: height)
        // Chroma covers the luma crop's pixel pairs; crops from the layouts start even.
        let cx = crop.x / 2, cy = crop.y / 2
        let cw = (crop.x + crop.width + 1) / 2 - cx, ch = (crop.y + crop.height + 1) / 2 - cy
        let outCW = (width + 1) / 2, outCH = (height + 1) / 2
        let cb = Self.resample(source.cb, stride: source.chromaStride, x: cx, y: cy, width: cw, height: ch,
                               toWidth: outCW, toHeight: outCH)
        let cr = Self.resample(source.cr, stride: source.chromaStride, x: cx, y: cy, width: cw, height: ch,
                               toWidth: outCW, toHeight: outCH)
        return YUV420Image(width: width, height: height, lumaStride: width, chromaStride: outCW,
                           y: y, cb: cb, cr: cr)
    }

    private static let unit = 1 << 14

    /// For each output sample: the first input index and the weights from there on,
    /// flattened (`weights[offset[i] ..< offset[i + 1]]`) so the loops stay cheap even in
    /// debug builds, where the tests run.
    private struct Taps {
        var first: [Int] = []
        var offset: [Int] = [0]
        var weights: [Int] = []

        init(from inCount: Int, to outCount: Int) {
            let ratio = Double(inCount) / Double(outCount)
            let support = max(1.0, ratio)
            for i in 0..<outCount {
                let centre = (Double(i) + 0.5) * ratio
                let lo = Int((centre - support).rounded(.down))
                let hi = Int((centre + support).rounded(.up))
                // Taps that fall outside the plane are folded onto its edge pixels.
                let firstIn = max(0, lo), lastIn = min(inCount - 1, hi)
                var folded = [Double](repeating: 0, count: lastIn - firstIn + 1)
                for j in lo...hi {
                    folded[min(max(j, firstIn), lastIn) - firstIn] += max(0, 1 - abs(Double(j) + 0.5 - centre) / support)
                }
                let total = folded.reduce(0, +)
                var ints = folded.map { Int(($0 / total * Double(ReferenceScaler.unit)).rounded()) }
                let largest = ints.indices.max { ints[$0] < ints[$1] }!
                ints[largest] += ReferenceScaler.unit - ints.reduce(0, +)
                first.append(firstIn)
                weights += ints
                offset.append(weights.count)
            }
        }
    }

    private static func resample(_ plane: [UInt8], stride: Int, x: Int, y: Int, width: Int, height: Int,
                                 toWidth outW: Int, toHeight outH: Int) -> [UInt8] {
        let horizontal = Taps(from: width, to: outW)
        let vertical = Taps(from: height, to: outH)
        var rows = [Int](repeating: 0, count: outW * height)
        for r in 0..<height {
            let base = (y + r) * stride + x
            for i in 0..<outW {
                var sum = 0, source = base + horizontal.first[i]
                for k in horizontal.offset[i]..<horizontal.offset[i + 1] {
                    sum += horizontal.weights[k] * Int(plane[source])
                    source += 1
                }
                rows[r * outW + i] = sum
            }
        }
        var out = [UInt8](repeating: 0, count: outW * outH)
        let half = unit * unit / 2
        for o in 0..<outH {
            for i in 0..<outW {
                var sum = 0, source = vertical.first[o] * outW + i
                for k in vertical.offset[o]..<vertical.offset[o + 1] {
                    sum += vertical.weights[k] * rows[source]
                    source += outW
                }
                out[o * outW + i] = UInt8(clamping: (sum + half) / (unit * unit))
            }
        }
        return out
    }
}
