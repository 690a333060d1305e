import DualCamCore
import Testing

struct CaptureModeFitTests {
    let maximum = CaptureMode(width: 3840, height: 2160, rate: .fps60)

    @Test func cameraThatHoldsTheModeKeepsIt() {
        let fitted = CaptureModeFit.fit(maximum, to: [CameraLimits(maxWidth: 3840, maxHeight: 2160, maxFramesPerSecond: 60),
                                                      CameraLimits(maxWidth: 3840, maxHeight: 2160, maxFramesPerSecond: 60)])
        #expect(fitted == maximum)
    }

    @Test func unknownLimitsChangeNothing() {
        #expect(CaptureModeFit.fit(maximum, to: [CameraLimits(maxWidth: 0, maxHeight: 0, maxFramesPerSecond: 0)]) == maximum)
        #expect(CaptureModeFit.fit(maximum, to: []) == maximum)
    }

    @Test func theSmallestCameraSetsSizeAndRate() {
        // A 4K30 webcam beside a 1080p60 one: neither 4K nor 60 fps is common to both.
        let fitted = CaptureModeFit.fit(maximum, to: [CameraLimits(maxWidth: 3840, maxHeight: 2160, maxFramesPerSecond: 30),
                                                      CameraLimits(maxWidth: 1920, maxHeight: 1080, maxFramesPerSecond: 60)])
        #expect(fitted == CaptureMode(width: 1920, height: 1080, rate: .fps30))
    }

    @Test func aFourByThreeCameraGetsTheLargestSixteenByNineInsideIt() {
        let fitted = CaptureModeFit.fit(maximum, to: [CameraLimits(maxWidth: 1600, maxHeight: 1200, maxFramesPerSecond: 30)])
        #expect(fitted == CaptureMode(width: 1600, height: 900, rate: .fps30))
    }

    @Test func aCameraSmallerThanEveryStandardSizeGivesItsOwn() {
        let fitted = CaptureModeFit.fit(maximum, to: [CameraLimits(maxWidth: 320, maxHeight: 241, maxFramesPerSecond: 15)])
        #expect(fitted == CaptureMode(width: 320, height: 240, rate: FrameRate(15)))
    }

    @Test func neverRaisesAModeAboveWhatWasAsked() {
        let balanced = CaptureMode(width: 1920, height: 1080, rate: .fps30)
        #expect(CaptureModeFit.fit(balanced, to: [CameraLimits(maxWidth: 3840, maxHeight: 2160, maxFramesPerSecond: 60)]) == balanced)
        let fitted = CaptureModeFit.fit(balanced, to: [CameraLimits(maxWidth: 1280, maxHeight: 720, maxFramesPerSecond: 60)])
        #expect(fitted == CaptureMode(width: 1280, height: 720, rate: .fps30))
    }

    @Test func ntscRatesCountAsTheirWholeNumber() {
        let limits = CameraLimits(maxWidth: 1920, maxHeight: 1080, maxFramesPerSecond: 30)
        #expect(limits.holds(FrameRate.ntsc30))
        #expect(!limits.holds(FrameRate.fps50))
    }

    @Test func shortfallsNameTheCameraAndWhatItLacks() {
        let mode = CaptureMode(width: 1920, height: 1080, rate: .fps60)
        let notes = CaptureModeFit.shortfalls(mode, cameras: [
            ("host", CameraLimits(maxWidth: 3840, maxHeight: 2160, maxFramesPerSecond: 60)),
            ("guest", CameraLimits(maxWidth: 1280, maxHeight: 720, maxFramesPerSecond: 30)),
        ])
        #expect(notes.count == 1)
        #expect(notes.first?.hasPrefix("guest: ") == true)
        #expect(notes.first?.contains("1280x720") == true && notes.first?.contains("30 fps") == true)
    }
}
