import DualCamProtocol

extension ProbeResult {
    /// Ready's account of the encoder (PROTOCOL.md §19).
    var wire: Dualcam_V1_EncoderReport {
        var report = Dualcam_V1_EncoderReport()
        report.encoder = encoder
        report.preset = outcome.preset ?? ""
        report.automatic = true
        report.speed = outcome.speed
        report.cached = cached
        report.measured = speeds.prefix(16).map { speed in
            var m = Dualcam_V1_PresetMeasurement()
            m.preset = speed.preset
            m.framesPerSecond = speed.framesPerSecond
            return m
        }
        return report
    }
}

extension PresetSwitchRecord {
    var wire: Dualcam_V1_PresetSwitch {
        var change = Dualcam_V1_PresetSwitch()
        change.segmentIndex = UInt32(clamping: segmentIndex)
        change.atPtsNs = max(0, atPtsNanoseconds)
        change.preset = preset
        change.reason = WireSentences.fitted([reason])[0]
        return change
    }
}
