import Testing
@testable import DualCamCore

@Suite struct DCTCTests {
    @Test func codeFloorsAndWraps() {
        #expect(DCTC.code(trueNanoseconds: 0) == 0)
        #expect(DCTC.code(trueNanoseconds: 99_999) == 0)
        #expect(DCTC.code(trueNanoseconds: 100_000) == 1)
        #expect(DCTC.code(trueNanoseconds: 1_000_000_000) == 10_000)
        #expect(DCTC.code(trueNanoseconds: -1) == UInt32.max)
        #expect(DCTC.code(trueNanoseconds: -100_000) == UInt32.max)
        #expect(DCTC.code(trueNanoseconds: -100_001) == UInt32.max - 1)
        #expect(DCTC.code(trueNanoseconds: Int64(UInt32.max) * 100_000 + 100_000) == 0)
    }

    @Test func differenceIsSignedAcrossTheWrap() {
        #expect(DCTC.differenceNanoseconds(5, 3) == 200_000)
        #expect(DCTC.differenceNanoseconds(3, 5) == -200_000)
        #expect(DCTC.differenceNanoseconds(1, UInt32.max) == 200_000)
        let a = DCTC.code(trueNanoseconds: 10_000_000_000), b = DCTC.code(trueNanoseconds: 9_963_000_000)
        #expect(DCTC.differenceNanoseconds(a, b) == 37_000_000)
    }

    @Test func geometryFollowsTheSpec() {
        let g = DCTC.Geometry(width: 1920, height: 1080)
        #expect(g.cellWidth == 60 && g.cellHeight == 67)
        #expect(g.originX == 480 && g.originY == 473)
        #expect(g.cellOrigin(bit: 17) == (540, 540))
        let odd = DCTC.Geometry(width: 1279, height: 719)
        #expect(odd.cellWidth == 39 && odd.cellHeight == 44)
        #expect(odd.originX == 327 && odd.originY == 315)
    }

    @Test(arguments: [(1280, 720), (1920, 1080), (640, 480), (1279, 719), (641, 361), (320, 180)])
    func roundTripOverAMovingPicture(width: Int, height: Int) {
        var image = YUV420Image(width: width, height: height)
        for (i, code) in [UInt32(0), 0xFFFF_FFFF, 0xA5A5_5A5A, 0x1234_5678, 0x8000_0001].enumerated() {
            SyntheticPicture.render(frameIndex: Int64(i * 37), into: &image)
            DCTC.draw(code, into: &image)
            #expect(DCTC.read(image) == code)
            let full = PixelRect(x: 0, y: 0, width: width, height: height)
            #expect(DCTC.read(image, slot: full, sourceWidth: width, sourceHeight: height) == code)
        }
    }

    @Test func drawsOnlyInsideTheGridAndNeutralisesItsChroma() {
        let width = 643, height = 363
        var picture = YUV420Image(width: width, height: height)
        SyntheticPicture.render(frameIndex: 5, into: &picture)
        var marked = picture
        DCTC.draw(0xDEAD_BEEF, into: &marked)
        let g = DCTC.Geometry(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let inside = x >= g.originX && x < g.originX + g.gridWidth
                    && y >= g.originY && y < g.originY + g.gridHeight
                if inside {
                    #expect(marked.luma(x, y) == 235 || marked.luma(x, y) == 16)
                    let c = (y / 2) * marked.chromaStride + x / 2
                    #expect(marked.cb[c] == 128 && marked.cr[c] == 128)
                } else if marked.luma(x, y) != picture.luma(x, y) {
                    Issue.record("luma changed outside the grid at \(x),\(y)")
                    return
                }
            }
        }
        // Chroma samples wholly outside the grid are untouched.
        let cx = (g.originX + g.gridWidth) / 2 + 1, cy = g.originY / 2
        #expect(marked.cb[cy * marked.chromaStride + cx] == picture.cb[cy * picture.chromaStride + cx])
    }

    @Test func respectsPaddedStrides() {
        let width = 320, height = 180, ls = 352, cs = 192
        var image = YUV420Image(width: width, height: height, lumaStride: ls, chromaStride: cs,
                                y: [UInt8](repeating: 7, count: ls * height),
                                cb: [UInt8](repeating: 7, count: cs * 90), cr: [UInt8](repeating: 7, count: cs * 90))
        SyntheticPicture.render(frameIndex: 3, into: &image)
        DCTC.draw(0x0F0F_F0F0, into: &image)
        #expect(DCTC.read(image) == 0x0F0F_F0F0)
        for row in 0..<height { #expect(image.y[row * ls + width] == 7) }
        for row in 0..<90 { #expect(image.cb[row * cs + 160] == 7 && image.cr[row * cs + 191] == 7) }
    }

    @Test func readsAfterHalfScale() {
        var source = YUV420Image(width: 1280, height: 720)
        SyntheticPicture.render(frameIndex: 11, into: &source)
        DCTC.draw(0x5EED_C0DE, into: &source)
        let half = coverScaled(source, into: PixelRect(x: 0, y: 0, width: 640, height: 360), canvasWidth: 640, canvasHeight: 360)
        #expect(DCTC.read(half) == 0x5EED_C0DE)
    }

    @Test(arguments: [
        PixelRect(x: 0, y: 0, width: 960, height: 1080),      // split, cropped sideways
        PixelRect(x: 960, y: 0, width: 960, height: 1080),
        PixelRect(x: 0, y: 540, width: 1920, height: 540),    // top/bottom, cropped vertically
        PixelRect(x: 1440, y: 788, width: 432, height: 244),  // picture in picture, 25 % wide
        PixelRect(x: 100, y: 100, width: 500, height: 500),   // square slot
    ])
    func readsFromACompositeSlot(slot: PixelRect) {
        var source = YUV420Image(width: 1280, height: 720)
        SyntheticPicture.render(frameIndex: 2, into: &source)
        DCTC.draw(0xC0FF_EE42, into: &source)
        let canvas = coverScaled(source, into: slot, canvasWidth: 1920, canvasHeight: 1080)
        #expect(DCTC.read(canvas, slot: slot, sourceWidth: 1280, sourceHeight: 720) == 0xC0FF_EE42)
    }

    @Test func tinyFramesReadAsZeroInsteadOfTrapping() {
        var image = YUV420Image(width: 20, height: 10)
        DCTC.draw(0xFFFF_FFFF, into: &image)
        #expect(DCTC.read(image) == 0)
    }
}

/// Places `source` on a grey canvas scaled to cover `slot` and cropped centred, by
/// averaging the source pixels each destination pixel covers (a box filter, enough to
/// stand in for the compositor's scaler in tests).
private func coverScaled(_ source: YUV420Image, into slot: PixelRect, canvasWidth: Int, canvasHeight: Int) -> YUV420Image {
    var canvas = YUV420Image(width: canvasWidth, height: canvasHeight)
    for i in canvas.y.indices { canvas.y[i] = 90 }
    let s = max(Double(slot.width) / Double(source.width), Double(slot.height) / Double(source.height))
    let cx = Double(slot.x) + Double(slot.width) / 2, cy = Double(slot.y) + Double(slot.height) / 2
    for py in slot.y..<(slot.y + slot.height) {
        let v0 = (Double(py) - cy) / s + Double(source.height) / 2
        let v1 = (Double(py + 1) - cy) / s + Double(source.height) / 2
        let ys = max(Int(v0), 0)..<min(max(Int(v1.rounded(.up)), Int(v0) + 1), source.height)
        for px in slot.x..<(slot.x + slot.width) {
            let u0 = (Double(px) - cx) / s + Double(source.width) / 2
            let u1 = (Double(px + 1) - cx) / s + Double(source.width) / 2
            let xs = max(Int(u0), 0)..<min(max(Int(u1.rounded(.up)), Int(u0) + 1), source.width)
            var sum = 0, n = 0
            for v in ys { for u in xs { sum += Int(source.luma(u, v)); n += 1 } }
            canvas.y[py * canvas.lumaStride + px] = UInt8(n == 0 ? 0 : sum / n)
        }
    }
    return canvas
}
