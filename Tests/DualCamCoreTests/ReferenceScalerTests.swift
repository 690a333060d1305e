import Testing
import DualCamCore

@Suite struct ReferenceScalerTests {
    @Test func flatStaysFlat() {
        let source = PictureFixtures.flat(width: 97, height: 61, y: 77, cb: 99, cr: 155)
        let out = ReferenceScaler().scale(source, crop: PixelRect(x: 2, y: 4, width: 90, height: 50), toWidth: 33, height: 130)
        #expect(out.width == 33 && out.height == 130)
        #expect(out.y.allSatisfy { $0 == 77 } && out.cb.allSatisfy { $0 == 99 } && out.cr.allSatisfy { $0 == 155 })
    }

    @Test func sameSizeIsACopyOfTheCrop() {
        let source = PictureFixtures.pattern(width: 64, height: 48, seed: 3, lumaPadding: 5, chromaPadding: 2)
        let out = ReferenceScaler().scale(source, crop: PixelRect(x: 8, y: 6, width: 32, height: 20), toWidth: 32, height: 20)
        for y in 0..<20 {
            for x in 0..<32 { #expect(out.luma(x, y) == source.luma(x + 8, y + 6)) }
        }
        #expect(out.cb[0] == source.cb[3 * source.chromaStride + 4])
    }

    @Test func halvingAveragesColumnPairs() {
        var source = PictureFixtures.flat(width: 64, height: 8, y: 0)
        for y in 0..<8 {
            for x in 0..<64 { source.y[y * 64 + x] = x % 2 == 0 ? 40 : 200 }
        }
        let out = ReferenceScaler().scale(source, crop: PixelRect(x: 0, y: 0, width: 64, height: 8), toWidth: 32, height: 8)
        // Away from the edges, alternating columns average to their mean: no aliasing.
        for x in 2..<30 { #expect(out.luma(x, 4) == 120) }
    }

    @Test func enlargingARampStaysMonotonic() {
        var source = PictureFixtures.flat(width: 16, height: 2, y: 0)
        for y in 0..<2 {
            for x in 0..<16 { source.y[y * 16 + x] = UInt8(16 + x * 10) }
        }
        let out = ReferenceScaler().scale(source, crop: PixelRect(x: 0, y: 0, width: 16, height: 2), toWidth: 64, height: 4)
        for x in 1..<64 { #expect(out.luma(x, 1) >= out.luma(x - 1, 1)) }
        #expect(out.luma(0, 0) == 16 && out.luma(63, 0) == 166)
    }
}
