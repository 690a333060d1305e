import Testing
@testable import DualCamCore

@Suite struct ZoomTests {
    let second: Int64 = 1_000_000_000

    @Test func cropIsTheCentredFractionOfThePicture() {
        #expect(ZoomCrop.rect(factor: 1, centre: .centre, width: 1920, height: 1080) == PixelRect(x: 0, y: 0, width: 1920, height: 1080))
        #expect(ZoomCrop.rect(factor: 2, centre: .centre, width: 1920, height: 1080) == PixelRect(x: 480, y: 270, width: 960, height: 540))
        #expect(ZoomCrop.rect(factor: 4, centre: .centre, width: 1280, height: 720) == PixelRect(x: 480, y: 270, width: 320, height: 180))
        // Odd results are made even, so chroma lines up.
        let odd = ZoomCrop.rect(factor: 3, centre: .centre, width: 640, height: 360)
        #expect(odd.width % 2 == 0 && odd.height % 2 == 0 && odd.x % 2 == 0 && odd.y % 2 == 0)
        #expect(odd.width == 212 && odd.height == 120)
    }

    @Test func aCentreNearAnEdgeKeepsTheCropInside() {
        let corner = ZoomCrop.rect(factor: 2, centre: ZoomPoint(x: 0, y: 1)!, width: 1920, height: 1080)
        #expect(corner == PixelRect(x: 0, y: 540, width: 960, height: 540))
        let right = ZoomCrop.rect(factor: 2, centre: ZoomPoint(x: 0.9, y: 0.5)!, width: 1920, height: 1080)
        #expect(right.x + right.width == 1920)
        // A factor beyond 4 (never accepted, but never trapping either) is held at 4.
        #expect(ZoomCrop.rect(factor: 100, centre: .centre, width: 1920, height: 1080).width == 480)
        #expect(ZoomCrop.rect(factor: .nan, centre: .centre, width: 1920, height: 1080).width == 1920)
    }

    @Test func pointsOutsideThePictureAreRefused() {
        #expect(ZoomPoint(x: 1.5, y: 0.5) == nil)
        #expect(ZoomPoint(x: .nan, y: 0.5) == nil)
        #expect(ZoomPoint(parsing: "0.25,0.75") == ZoomPoint(x: 0.25, y: 0.75))
        #expect(ZoomPoint(parsing: "middle") == nil)
    }

    @Test func aRampRisesMonotonicallyFromStartToEnd() {
        let ramp = ZoomRamp.none.retargeted(to: 2, centre: .centre, at: 10 * second, durationNanoseconds: second)
        #expect(ramp.factor(at: 9 * second) == 1)
        #expect(ramp.factor(at: 10 * second) == 1)
        #expect(ramp.factor(at: 11 * second) == 2)
        #expect(ramp.factor(at: 20 * second) == 2)
        var last = 1.0
        for ms in stride(from: Int64(0), through: 1000, by: 33) {
            let f = ramp.factor(at: 10 * second + ms * 1_000_000)
            #expect(f >= last)
            last = f
        }
        // Geometric and symmetric: half way in time is √2, not 1.5.
        #expect(abs(ramp.factor(at: 10 * second + second / 2) - 2.0.squareRoot()) < 1e-9)
        // Eased: the first tenth moves less than a tenth of the way.
        #expect(ramp.progress(at: 10 * second + second / 10) < 0.1)
    }

    @Test func aNewTargetStartsFromWhereTheRampIs() {
        let first = ZoomRamp.none.retargeted(to: 4, centre: .centre, at: 0, durationNanoseconds: 2 * second)
        let middle = first.factor(at: second)
        let back = first.retargeted(to: 1, centre: ZoomPoint(x: 0.2, y: 0.2)!, at: second, durationNanoseconds: second)
        #expect(back.factor(at: second) == middle)
        #expect(back.factor(at: 2 * second) == 1)
        #expect(back.centre(at: 2 * second) == ZoomPoint(x: 0.2, y: 0.2))
        #expect(back.isIdentity(at: 2 * second))
        #expect(!back.isIdentity(at: second + second / 2))
        // At once: no ramp.
        let cut = first.retargeted(to: 3, centre: .centre, at: 5, durationNanoseconds: 0)
        #expect(cut.factor(at: 5) == 3)
    }

    @Test func extremeTimesNeverTrap() {
        let ramp = ZoomRamp.none.retargeted(to: 2, centre: .centre, at: Int64.min + 1, durationNanoseconds: Int64.max)
        #expect(ramp.factor(at: Int64.max) == 2)
        #expect(ramp.durationNanoseconds == ZoomRamp.maxDurationNanoseconds)
    }

    @Test func badSettingsSayTheRange() {
        #expect(ZoomRamp.problem(factor: 5, rampSeconds: 0)?.contains("1 to 4") == true)
        #expect(ZoomRamp.problem(factor: 2, rampSeconds: -1)?.contains("0 (at once)") == true)
        #expect(ZoomRamp.problem(factor: .infinity, rampSeconds: 0) != nil)
        #expect(ZoomRamp.problem(factor: 2.5, rampSeconds: 0.5) == nil)
    }
}
