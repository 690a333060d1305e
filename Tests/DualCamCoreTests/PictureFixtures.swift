import DualCamCore

/// Deterministic pictures and a checksum for the compositor and filter tests.
enum PictureFixtures {
    /// A busy, deterministic picture that differs per `seed`, with row padding filled
    /// with 0xEE so any read of padding shows up in the output.
    static func pattern(width: Int, height: Int, seed: Int, lumaPadding: Int = 0, chromaPadding: Int = 0) -> YUV420Image {
        let ls = width + lumaPadding
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        let cs = cw + chromaPadding
        var y = [UInt8](repeating: 0xEE, count: ls * height)
        var cb = [UInt8](repeating: 0xEE, count: cs * ch)
        var cr = [UInt8](repeating: 0xEE, count: cs * ch)
        for row in 0..<height {
            for col in 0..<width {
                y[row * ls + col] = UInt8(16 + (col * 7 + row * 3 + (col * row) / 11 + seed * 53) % 220)
            }
        }
        for row in 0..<ch {
            for col in 0..<cw {
                cb[row * cs + col] = UInt8(16 + (col * 5 + row + seed * 71) % 225)
                cr[row * cs + col] = UInt8(16 + (row * 4 + col * 2 + seed * 29) % 225)
            }
        }
        return YUV420Image(width: width, height: height, lumaStride: ls, chromaStride: cs, y: y, cb: cb, cr: cr)
    }

    /// A single-colour picture.
    static func flat(width: Int, height: Int, y: UInt8, cb: UInt8 = 128, cr: UInt8 = 128) -> YUV420Image {
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        return YUV420Image(width: width, height: height, lumaStride: width, chromaStride: cw,
                           y: [UInt8](repeating: y, count: width * height),
                           cb: [UInt8](repeating: cb, count: cw * ch),
                           cr: [UInt8](repeating: cr, count: cw * ch))
    }

    /// 64-bit FNV-1a over the visible pixels of the three planes (padding excluded), so
    /// the value depends on the picture and not on how it is laid out in memory.
    static func checksum(_ image: YUV420Image) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func feed(_ plane: [UInt8], stride: Int, width: Int, height: Int) {
            for row in 0..<height {
                for col in 0..<width {
                    hash = (hash ^ UInt64(plane[row * stride + col])) &* 0x0000_0100_0000_01b3
                }
            }
        }
        feed(image.y, stride: image.lumaStride, width: image.width, height: image.height)
        feed(image.cb, stride: image.chromaStride, width: image.chromaWidth, height: image.chromaHeight)
        feed(image.cr, stride: image.chromaStride, width: image.chromaWidth, height: image.chromaHeight)
        return hash
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 16 - digits.count) + digits
    }
}
