import DualCamProtocol

extension ProbeResult {
    /// Ready's `presets_measured` (PROTOCOL.md §19): every preset measured, the chosen one marked.
    var wire: [Dualcam_V1_PresetMeasurement] {
        speeds.prefix(16).map { speed in
            var m = Dualcam_V1_PresetMeasurement()
            m.preset = speed.preset
            m.framesPerSecond = speed.framesPerSecond
            m.chosen = speed.preset == outcome.preset
            m.measuredBefore = cached
            return m
        }
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
