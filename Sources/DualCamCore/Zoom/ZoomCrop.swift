/// The part of a picture a digital zoom shows: `1/factor` of its width and height around
/// the centre, moved inside the picture where the centre is too near an edge (a zoom at
/// a corner shows the corner, it never shows black). Even offsets and sizes, so that the
/// 4:2:0 chroma of the crop lines up with its luma.
public enum ZoomCrop {
    public static func rect(factor: Double, centre: ZoomPoint, width: Int, height: Int) -> PixelRect {
        guard factor.isFinite, factor > 1, width >= 2, height >= 2 else {
            return PixelRect(x: 0, y: 0, width: width, height: height)
        }
        let f = min(factor, ZoomRamp.factors.upperBound)
        let cropWidth = max(2, evenDown(Int((Double(width) / f).rounded())))
        let cropHeight = max(2, evenDown(Int((Double(height) / f).rounded())))
        let x = place(centre.x * Double(width), size: cropWidth, within: width)
        let y = place(centre.y * Double(height), size: cropHeight, within: height)
        return PixelRect(x: x, y: y, width: cropWidth, height: cropHeight)
    }

    private static func place(_ middle: Double, size: Int, within extent: Int) -> Int {
        let start = Int((middle - Double(size) / 2).rounded())
        return evenDown(min(max(start, 0), extent - size))
    }

    private static func evenDown(_ n: Int) -> Int { n & ~1 }
}
