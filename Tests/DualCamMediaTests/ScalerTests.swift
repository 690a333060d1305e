import DualCamCore
import DualCamMedia
import Testing

@Suite struct ScalerTests {
    /// Luma = x, chroma = row-dependent: every pixel tells where it came from.
    static func gradient(width: Int, height: Int) -> YUV420Image {
        var image = YUV420Image(width: width, height: height)
        for row in 0..<height { for column in 0..<width { image.y[row * image.lumaStride + column] = UInt8(column) } }
        for row in 0..<image.chromaHeight {
            for column in 0..<image.chromaWidth {
                image.cb[row * image.chromaStride + column] = UInt8(row * 2)
                image.cr[row * image.chromaStride + column] = 200
            }
        }
        return image
    }

    @Test func cropWithoutScalingCopiesTheRectangle() {
        let source = ScalerTests.gradient(width: 256, height: 128)
        let scaler = SwsScaler()
        let result = scaler.scale(source, crop: PixelRect(x: 64, y: 32, width: 96, height: 48), toWidth: 96, height: 48)
        #expect(result.width == 96 && result.height == 48)
        for row in [0, 20, 47] {
            for column in [0, 50, 95] { #expect(result.luma(column, row) == UInt8(64 + column)) }
        }
        #expect(result.cb[5 * result.chromaStride + 3] == UInt8((16 + 5) * 2))
        #expect(result.cr[0] == 200)
    }

    @Test func cropAndDownscaleByTwoFollowsTheGradient() {
        let source = ScalerTests.gradient(width: 256, height: 128)
        let scaler = SwsScaler()
        let result = scaler.scale(source, crop: PixelRect(x: 64, y: 32, width: 128, height: 64), toWidth: 64, height: 32)
        #expect(result.width == 64 && result.height == 32)
        for column in 1..<63 {
            // Output pixel i covers source columns 64+2i and 65+2i.
            let expected = 64.5 + 2 * Double(column)
            #expect(abs(Double(result.luma(column, 16)) - expected) <= 1.5, "column \(column): \(result.luma(column, 16))")
        }
        // Same geometry again hits the cached context and gives the same result.
        #expect(scaler.scale(source, crop: PixelRect(x: 64, y: 32, width: 128, height: 64), toWidth: 64, height: 32) == result)
    }

    @Test func upscaleAndManyGeometriesStayCorrect() {
        let source = ScalerTests.gradient(width: 128, height: 64)
        let scaler = SwsScaler()
        for width in stride(from: 32, through: 320, by: 16) {
            let result = scaler.scale(source, crop: PixelRect(x: 0, y: 0, width: 128, height: 64), toWidth: width, height: 40)
            #expect(result.width == width && result.height == 40)
            let middle = Double(result.luma(width / 2, 20))
            #expect(abs(middle - 64) <= 2, "width \(width): \(middle)")
        }
    }

    @Test func cropOutsideTheSourceIsClippedOrBlack() {
        let source = ScalerTests.gradient(width: 64, height: 64)
        let scaler = SwsScaler()
        let black = scaler.scale(source, crop: PixelRect(x: 100, y: 100, width: 16, height: 16), toWidth: 16, height: 16)
        #expect(black.luma(8, 8) == 16)
        let clipped = scaler.scale(source, crop: PixelRect(x: 48, y: 0, width: 32, height: 64), toWidth: 16, height: 64)
        #expect(clipped.luma(0, 0) == 48)
    }
}
