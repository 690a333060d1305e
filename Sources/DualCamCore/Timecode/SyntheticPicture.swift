/// The synthetic source's picture: diagonal bars drifting across the frame, a bright
/// block sweeping sideways and slowly cycling colour, so that the encoder has real motion
/// to code and a person can see at a glance that frames advance. The DCTC grid is drawn
/// over it afterwards by the caller.
///
/// Each row of the bars is a shifted window onto one periodic line built per frame, so a
/// frame costs little more than copying memory (well under a millisecond at 720p).
public enum SyntheticPicture {
    /// Bar period in pixels; a power of two so wrapping is a mask.
    static let period = 256
    /// Luma of one bar period: a triangle wave over the legal range 16...235.
    static let triangle: [UInt8] = (0..<period).map { i in
        let up = i < period / 2 ? i : period - 1 - i  // 0...127
        return UInt8(16 + up * 219 / 127)
    }

    /// `tint`: the colour the wash swings around (nil: neutral grey, a full swing).
    public static func render(frameIndex: Int64, tint: ChromaTint? = nil, into image: inout YUV420Image) {
        let f = Int(truncatingIfNeeded: frameIndex & 0xFFFF_FFFF)
        renderLuma(frame: f, into: &image)
        renderChroma(frame: f, tint: tint, into: &image)
    }

    private static func renderLuma(frame f: Int, into image: inout YUV420Image) {
        let width = image.width, height = image.height, stride = image.lumaStride
        let mask = period - 1
        // One line long enough for any row's shift: row r starts at offset r mod period.
        var line = [UInt8](repeating: 0, count: width + period)
        let phase = (f &* 3) & mask
        for i in 0..<line.count { line[i] = triangle[(i + phase) & mask] }
        // The sweeping block: a quarter of the height, an eighth of the width.
        let blockW = max(width / 8, 1), blockH = max(height / 4, 1)
        let travel = max(width - blockW, 1)
        let sweep = (f &* 8) % (2 * travel)
        let blockX = sweep < travel ? sweep : 2 * travel - sweep
        let blockY = height / 8
        line.withUnsafeBufferPointer { src in
            image.y.withUnsafeMutableBufferPointer { dst in
                for row in 0..<height {
                    let from = src.baseAddress! + (row & mask)
                    let to = dst.baseAddress! + row * stride
                    to.update(from: from, count: width)
                    if row >= blockY && row < blockY + blockH {
                        (to + blockX).update(repeating: 200, count: min(blockW, width - blockX))
                    }
                }
            }
        }
    }

    /// A gentle chroma swing, `centre ± swing`, so colours stay plausible.
    private static func wash(_ phase: Int, around centre: Int, swing: Int) -> UInt8 {
        let level = Int(triangle[phase]) - 16  // 0...219
        return UInt8(centre - swing + level * 2 * swing / 219)
    }

    private static func renderChroma(frame f: Int, tint: ChromaTint?, into image: inout YUV420Image) {
        let width = image.chromaWidth, height = image.chromaHeight, stride = image.chromaStride
        let mask = period - 1
        // Neutral: 80...176. Tinted: a third of that swing, so the camera's colour is
        // what one sees in every frame while the chroma still moves.
        let swing = tint == nil ? 48 : 16
        let cbCentre = 128 + (tint?.cb ?? 0), crCentre = 128 + (tint?.cr ?? 0)
        // Cb varies along x and Cr along y, both drifting with time: a slow colour wash.
        var cbLine = [UInt8](repeating: 128, count: width)
        for x in 0..<width { cbLine[x] = wash((x + f) & mask, around: cbCentre, swing: swing) }
        var crRow = [UInt8](repeating: 128, count: height)
        for y in 0..<height { crRow[y] = wash((2 * y + 2 * f) & mask, around: crCentre, swing: swing) }
        cbLine.withUnsafeBufferPointer { src in
            image.cb.withUnsafeMutableBufferPointer { dst in
                for row in 0..<height { (dst.baseAddress! + row * stride).update(from: src.baseAddress!, count: width) }
            }
        }
        image.cr.withUnsafeMutableBufferPointer { dst in
            for row in 0..<height { (dst.baseAddress! + row * stride).update(repeating: crRow[row], count: width) }
        }
    }
}
