@testable import DualCamAgent
import DualCamCore
import Testing

/// `--preset-headroom` reaches the governor that steers the take's preset: a node asking
/// for more headroom steps further when it lags, and steps back only with the same margin
/// under its target as the default has.
struct PresetHeadroomTests {
    @Test func theGovernorAimsUnderTheNodesHeadroom() {
        var settings = RecordingSettings()
        #expect(abs(PresetSteering.governing(settings).targetLoad - 1 / 1.5) < 1e-9)
        #expect(abs(PresetSteering.governing(settings).calmLoad - 0.55) < 1e-9)
        settings.presetHeadroom = 2.5
        let governing = PresetSteering.governing(settings)
        #expect(abs(governing.targetLoad - 0.4) < 1e-9)
        #expect(abs(governing.calmLoad - 0.33) < 1e-9)

        // 90 % of each frame's time at veryfast lags either way; the step aims under the
        // target: superfast predicts 0.9 × 100/150 = 0.6, under 1/1.5 but not under 0.4;
        // ultrafast 0.9 × 100/240 = 0.375.
        let speeds = [PresetSpeed(preset: "ultrafast", framesPerSecond: 240), PresetSpeed(preset: "superfast", framesPerSecond: 150),
                      PresetSpeed(preset: "veryfast", framesPerSecond: 100)]
        func step(_ governing: PresetGovernor.Settings) -> String? {
            var governor = PresetGovernor(chosen: "veryfast", rate: .fps30, speeds: speeds, settings: governing)
            let period = FrameRate.fps30.periodNanoseconds
            for _ in 0..<60 { governor.frameEncoded(encodeNanoseconds: period * 9 / 10, queueDepth: 0, queueCapacity: 9) }
            guard case .switchTo(let preset, _) = governor.segmentBoundary(now: 2_000_000_000) else { return nil }
            return preset
        }
        #expect(step(PresetSteering.governing(RecordingSettings())) == "superfast")
        #expect(step(governing) == "ultrafast")
    }
}
