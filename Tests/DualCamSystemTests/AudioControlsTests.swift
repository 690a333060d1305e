@testable import DualCamAgent
@testable import DualCamCoordinator
import Testing

/// The small pieces of sound handling the operator sees: the status line's meter, the
/// mix option, the agent's level readings.
@Suite struct AudioControlsTests {
    @Test func meterLightsByPeakAndFlagsClipping() {
        #expect(LevelMeter.text(peakDBFS: -96, rmsDBFS: -96) == "mic [........] silent")
        #expect(LevelMeter.text(peakDBFS: -12, rmsDBFS: -30) == "mic [######..] -30 dB")
        #expect(LevelMeter.text(peakDBFS: 0, rmsDBFS: -3) == "mic [########] -3 dB CLIP")
    }

    @Test func mixSpecGivesOneGainPerCameraByRole() throws {
        #expect(try AudioMixSpec(parsing: "both").gains(for: ["Host", "Guest"]) == [1, 1])
        #expect(try AudioMixSpec(parsing: "host").gains(for: ["Host", "Guest"]) == [1, 0])
        let levels = try AudioMixSpec(parsing: "host=0,guest=-6").gains(for: ["Host", "Guest", "Camera3"])
        #expect(levels[0] == 1 && abs(levels[1] - 0.501) < 0.001 && levels[2] == 0)
        #expect(throws: (any Error).self) { try AudioMixSpec(parsing: "guest=loud") }
        #expect(throws: (any Error).self) { try AudioMixSpec(parsing: "guest=+20") }
    }

    @Test func levelMeterReadsPeakAndRMSInDBFSAndStartsOver() {
        var meter = AudioLevelMeter()
        meter.add([0.5, -0.5, 0.5, -0.5])
        let first = meter.read()
        #expect(abs(first.peakDBFS - (-6.02)) < 0.01 && abs(first.rmsDBFS - (-6.02)) < 0.01)
        let second = meter.read()
        #expect(second.peakDBFS == AudioLevelMeter.floorDBFS && second.rmsDBFS == AudioLevelMeter.floorDBFS)
        #expect(abs(Double(AudioLevelMeter.factor(gainDB: 6)) - 1.995) < 0.001)
    }

    @Test func agentAudioSettingsRefuseWhatCannotBeRecorded() {
        #expect(AudioSettings(source: .synthetic).problem == nil)
        #expect(AudioSettings(source: .synthetic, sampleRate: 32_000).problem?.contains("48000") == true)
        #expect(AudioSettings(source: .synthetic, channels: 6).problem?.contains("channels") == true)
        #expect(AudioSettings(source: .synthetic, gainDB: 20).problem?.contains("-12") == true)
        #expect(AudioSettings(source: .none).summary == "no audio")
    }
}

/// A mix may only name the session's cameras: `--mix lots` gave a silent combined file.
@Test func aMixNamingNoCameraOfTheSessionIsRefused() throws {
    let names = ["Host", "Guest"]
    #expect(throws: Never.self) { try AudioMixSpec.all.check(cameraNames: names) }
    #expect(throws: Never.self) { try AudioMixSpec(parsing: "guest").check(cameraNames: names) }
    #expect(throws: Never.self) { try AudioMixSpec(parsing: "host=0,guest=-6").check(cameraNames: names) }
    let error = #expect(throws: CoordinatorError.self) { try AudioMixSpec(parsing: "lots").check(cameraNames: names) }
    #expect("\(error!)".contains("lots") && "\(error!)".contains("host, guest"))
    #expect(throws: CoordinatorError.self) { try AudioMixSpec(parsing: "host,camera3").check(cameraNames: names) }
}
