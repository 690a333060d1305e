import Testing
@testable import DualCamCore

@Suite struct SyntheticPictureTests {
    @Test func isNotFlatAndStaysInLegalRange() {
        var image = YUV420Image(width: 1280, height: 720)
        SyntheticPicture.render(frameIndex: 42, into: &image)
        let distinct = Set(image.y)
        #expect(distinct.count > 100)
        #expect(image.y.allSatisfy { $0 >= 16 && $0 <= 235 })
        #expect(image.cb.allSatisfy { $0 >= 16 && $0 <= 240 } && image.cr.allSatisfy { $0 >= 16 && $0 <= 240 })
        #expect(Set(image.cb).count > 10 && Set(image.cr).count > 10)
    }

    @Test func movesFromFrameToFrame() {
        var a = YUV420Image(width: 640, height: 360), b = a
        SyntheticPicture.render(frameIndex: 100, into: &a)
        SyntheticPicture.render(frameIndex: 101, into: &b)
        let changed = zip(a.y, b.y).filter { $0 != $1 }.count
        #expect(changed > a.y.count / 2)
        var again = YUV420Image(width: 640, height: 360)
        SyntheticPicture.render(frameIndex: 100, into: &again)
        #expect(again == a)
    }

    @Test(arguments: [Int64(0), 1, -1, Int64.max, Int64.min, 1 << 40])
    func anyFrameIndexRenders(index: Int64) {
        var image = YUV420Image(width: 33, height: 17)
        SyntheticPicture.render(frameIndex: index, into: &image)
        #expect(image.y.allSatisfy { $0 >= 16 && $0 <= 235 })
    }
}
