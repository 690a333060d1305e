/// Checks on message contents that do not depend on the connection's state: every field
/// a peer sends is checked here before anything acts on it, so that no value from the
/// wire reaches a path, an integer conversion or arithmetic unchecked (PROTOCOL.md §10).
/// A violation is `ERROR_BAD_MESSAGE`, fatal.
enum MessageValidation {
    /// Instants on the shared clock: CLOCK_MONOTONIC in ns is positive and, for any
    /// machine that has been up less than 146 years, below 2^62, so differences and sums of
    /// two of them never overflow.
    static let maxInstant: Int64 = 1 << 62
    static let maxPictureSide: UInt32 = 16_384
    static let maxFramesPerSecond: UInt64 = 1_000
    static let maxBitrate: UInt64 = 2_000_000_000
    static let segmentMilliseconds: ClosedRange<UInt32> = 100...600_000
    static let maxListedSessions = 4_096
    static let maxSegmentIndex: UInt32 = 1 << 24

    static func checkSessionID(_ id: String) throws(ProtocolError) {
        try WireIdentifier.check(id, what: "session_id")
    }

    static func checkOffer(_ offer: Dualcam_V1_SegmentOffer) throws(ProtocolError) {
        try checkSessionID(offer.sessionID)
        try checkIndex(offer.index, in: "SegmentOffer")
        guard offer.size > 0, offer.size <= WireProtocol.maxSegmentBytes else {
            throw ProtocolError(.badMessage, "SegmentOffer \(offer.sessionID)#\(offer.index): size \(offer.size) is outside 1…\(WireProtocol.maxSegmentBytes)")
        }
        guard offer.sha256.count == 32 else {
            throw ProtocolError(.badMessage, "SegmentOffer \(offer.sessionID)#\(offer.index): sha256 must be 32 bytes, got \(offer.sha256.count)")
        }
        guard offer.resumeOffset <= offer.size else {
            throw ProtocolError(.badMessage, "SegmentOffer \(offer.sessionID)#\(offer.index): resume_offset \(offer.resumeOffset) is beyond size \(offer.size)")
        }
        guard abs(offer.firstPtsNs) < maxInstant, offer.durationNs >= 0, offer.durationNs < maxInstant else {
            throw ProtocolError(.badMessage, "SegmentOffer \(offer.sessionID)#\(offer.index): first_pts_ns/duration_ns out of range")
        }
    }

    static func checkStartAt(_ start: Dualcam_V1_StartAt) throws(ProtocolError) {
        try checkSessionID(start.sessionID)
        try checkInstant(start.t0SharedNs, "StartAt t0_shared_ns")
        if start.stopSharedNs != 0 {
            try checkInstant(start.stopSharedNs, "StartAt stop_shared_ns")
            guard start.stopSharedNs > start.t0SharedNs else {
                throw ProtocolError(.badMessage, "StartAt: stop_shared_ns \(start.stopSharedNs) is not after t0_shared_ns \(start.t0SharedNs)")
            }
        }
    }

    static func checkStop(_ stop: Dualcam_V1_Stop) throws(ProtocolError) {
        try checkSessionID(stop.sessionID)
        try checkInstant(stop.stopSharedNs, "Stop stop_shared_ns")
    }

    static func checkPrepare(_ prepare: Dualcam_V1_Prepare) throws(ProtocolError) {
        try checkSessionID(prepare.sessionID)
        try checkVideo(prepare.video, in: "Prepare")
    }

    static func checkVideo(_ v: Dualcam_V1_VideoSettings, in message: String) throws(ProtocolError) {
        for (name, side) in [("width", v.width), ("height", v.height)] where side != 0 {
            guard side >= 16, side <= maxPictureSide, side % 2 == 0 else {
                throw ProtocolError(.badMessage, "\(message): \(name) \(side) is not an even number of pixels in 16…\(maxPictureSide)")
            }
        }
        if v.fpsNum != 0 || v.fpsDen != 0 {
            let (num, den) = (UInt64(v.fpsNum), UInt64(v.fpsDen))
            guard num > 0, den > 0, num >= den, num <= maxFramesPerSecond * den else {
                throw ProtocolError(.badMessage, "\(message): frame rate \(num)/\(den) is outside 1…\(maxFramesPerSecond) fps")
            }
        }
        guard v.crf <= 51 else { throw ProtocolError(.badMessage, "\(message): crf \(v.crf) is outside 0…51") }
        guard v.bitrate <= maxBitrate else {
            throw ProtocolError(.badMessage, "\(message): bitrate \(v.bitrate) is above \(maxBitrate) bit/s")
        }
        guard v.segmentMs == 0 || segmentMilliseconds.contains(v.segmentMs) else {
            throw ProtocolError(.badMessage, "\(message): segment_ms \(v.segmentMs) is outside \(segmentMilliseconds)")
        }
        if !v.encoder.isEmpty { try WireIdentifier.check(v.encoder, what: "\(message) encoder") }
        if !v.preset.isEmpty { try WireIdentifier.check(v.preset, what: "\(message) preset") }
    }

    static func checkSegmentRequest(_ request: Dualcam_V1_SegmentRequest) throws(ProtocolError) {
        try checkSessionID(request.sessionID)
        try checkIndex(request.index, in: "SegmentRequest")
        guard request.offset <= WireProtocol.maxSegmentBytes else {
            throw ProtocolError(.badMessage, "SegmentRequest \(request.sessionID)#\(request.index): offset \(request.offset) is beyond the largest segment (\(WireProtocol.maxSegmentBytes))")
        }
    }

    static func checkSegmentAck(_ ack: Dualcam_V1_SegmentAck) throws(ProtocolError) {
        try checkSessionID(ack.sessionID)
        try checkIndex(ack.index, in: "SegmentAck")
        guard ack.receivedBytes <= WireProtocol.maxSegmentBytes else {
            throw ProtocolError(.badMessage, "SegmentAck \(ack.sessionID)#\(ack.index): received_bytes \(ack.receivedBytes) is beyond the largest segment")
        }
    }

    static func checkResume(_ resume: Dualcam_V1_Resume) throws(ProtocolError) {
        try checkSessionID(resume.sessionID)
        for index in resume.held { try checkIndex(index, in: "Resume") }
    }

    static func checkHello(_ hello: Dualcam_V1_Hello) throws(ProtocolError) {
        try WireIdentifier.check(hello.nodeName, what: "Hello node_name")
    }

    static func checkHelloAck(_ ack: Dualcam_V1_HelloAck) throws(ProtocolError) {
        try WireIdentifier.check(ack.nodeName, what: "HelloAck node_name")
        let caps = ack.capabilities
        guard caps.maxWidth <= maxPictureSide, caps.maxHeight <= maxPictureSide, UInt64(caps.maxFps) <= maxFramesPerSecond else {
            throw ProtocolError(.badMessage, "HelloAck capabilities: \(caps.maxWidth)x\(caps.maxHeight) at \(caps.maxFps) fps is out of range")
        }
        guard ack.pendingSessions.count <= maxListedSessions, ack.recordingSessions.count <= maxListedSessions else {
            throw ProtocolError(.badMessage, "HelloAck lists more than \(maxListedSessions) sessions")
        }
        for id in ack.pendingSessions + ack.recordingSessions { try checkSessionID(id) }
        try checkSentences([caps.sourceProblem], in: "HelloAck source_problem")
    }

    static func checkReady(_ ready: Dualcam_V1_Ready) throws(ProtocolError) {
        try checkSessionID(ready.sessionID)
        try checkVideo(ready.video, in: "Ready")
        try checkSentences(ready.warnings, in: "Ready warnings")
        try checkSentences([ready.sourceDescription], in: "Ready source_description")
        guard ready.presetsMeasured.count <= maxPresetMeasurements else {
            throw ProtocolError(.badMessage, "Ready: more than \(maxPresetMeasurements) presets_measured")
        }
        for m in ready.presetsMeasured {
            try checkPreset(m.preset, in: "Ready presets_measured")
            guard m.framesPerSecond.isFinite, m.framesPerSecond >= 0, m.framesPerSecond < 1e6 else {
                throw ProtocolError(.badMessage, "Ready presets_measured: \(m.framesPerSecond) fps is not a finite, non-negative figure")
            }
        }
        guard ready.presetsMeasured.filter(\.chosen).count <= 1 else {
            throw ProtocolError(.badMessage, "Ready presets_measured: more than one preset chosen")
        }
    }

    /// A preset is a short word; speeds are shown and compared, so finite and sane.
    static let maxPresetBytes = 32
    static let maxPresetMeasurements = 16

    /// An Error's `fits` (§19): a short list of real sizes and rates.
    static func checkFits(_ fits: [Dualcam_V1_VideoSettings]) throws(ProtocolError) {
        guard fits.count <= maxPresetMeasurements else {
            throw ProtocolError(.badMessage, "Error: more than \(maxPresetMeasurements) fits")
        }
        for fit in fits {
            try checkVideo(fit, in: "Error fits")
            guard fit.width > 0, fit.height > 0, fit.fpsNum > 0 else {
                throw ProtocolError(.badMessage, "Error fits: a fit needs a width, a height and a rate")
            }
        }
    }

    /// SourceStatus (§4.1): one sentence.
    static func checkSourceStatus(_ status: Dualcam_V1_SourceStatus) throws(ProtocolError) {
        try checkSentences([status.problem], in: "SourceStatus problem")
    }

    /// EncoderStatus (§19): a session, a preset word, a sentence.
    static func checkEncoderStatus(_ status: Dualcam_V1_EncoderStatus) throws(ProtocolError) {
        try checkSessionID(status.sessionID)
        try checkPreset(status.preset, in: "EncoderStatus")
        try checkSentences([status.shortfall], in: "EncoderStatus shortfall")
    }

    /// ClockLaneOffer (§20): a real port, a key of exactly `WireProtocol.clockLaneKeyBytes`
    /// bytes and a lane id other than 0.
    static func checkClockLaneOffer(_ offer: Dualcam_V1_ClockLaneOffer) throws(ProtocolError) {
        guard (1...65535).contains(offer.port) else {
            throw ProtocolError(.badMessage, "ClockLaneOffer: port \(offer.port) is not a UDP port (1-65535)")
        }
        guard offer.key.count == WireProtocol.clockLaneKeyBytes else {
            throw ProtocolError(.badMessage, "ClockLaneOffer: key of \(offer.key.count) bytes, must be \(WireProtocol.clockLaneKeyBytes)")
        }
        guard offer.laneID != 0 else { throw ProtocolError(.badMessage, "ClockLaneOffer: lane_id must not be 0") }
    }

    private static func checkPreset(_ preset: String, in message: String) throws(ProtocolError) {
        guard preset.utf8.count <= maxPresetBytes, preset.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 }) else {
            throw ProtocolError(.badMessage, "\(message): preset must be a word of at most \(maxPresetBytes) ASCII letters")
        }
    }

    private static func checkSentences(_ sentences: [String], in message: String) throws(ProtocolError) {
        guard sentences.count <= WireSentences.maxCount, sentences.allSatisfy({ $0.utf8.count <= WireSentences.maxBytes }) else {
            throw ProtocolError(.badMessage, "\(message): at most \(WireSentences.maxCount) of at most \(WireSentences.maxBytes) bytes each")
        }
    }

    static func checkRecordingFinished(_ finished: Dualcam_V1_RecordingFinished) throws(ProtocolError) {
        try checkSessionID(finished.sessionID)
        guard finished.segmentCount <= maxSegmentIndex else {
            throw ProtocolError(.badMessage, "RecordingFinished: segment_count \(finished.segmentCount) is above \(maxSegmentIndex)")
        }
        guard finished.framesCaptured < UInt64(maxInstant), finished.framesDropped < UInt64(maxInstant) else {
            throw ProtocolError(.badMessage, "RecordingFinished: frame counts out of range")
        }
        guard finished.unavailableSegments.allSatisfy({ $0 < finished.segmentCount }),
              Set(finished.unavailableSegments).count == finished.unavailableSegments.count else {
            throw ProtocolError(.badMessage, "RecordingFinished: unavailable_segments must be distinct indices below segment_count")
        }
        try checkSentences(finished.notes, in: "RecordingFinished notes")
        // A switch at most per segment: more entries than segments are not a take's.
        guard finished.presetSwitches.count <= min(Int(finished.segmentCount), WireProtocol.maxPresetSwitches) else {
            throw ProtocolError(.badMessage, "RecordingFinished: more preset_switches than segments (or than \(WireProtocol.maxPresetSwitches))")
        }
        for change in finished.presetSwitches {
            try checkIndex(change.segmentIndex, in: "RecordingFinished preset_switches")
            guard change.atPtsNs >= 0, change.atPtsNs < maxInstant else {
                throw ProtocolError(.badMessage, "RecordingFinished preset_switches: at_pts_ns \(change.atPtsNs) out of range")
            }
            try checkPreset(change.preset, in: "RecordingFinished preset_switches")
            try checkSentences([change.reason], in: "RecordingFinished preset_switches reason")
        }
    }

    static func checkClockStatus(_ status: Dualcam_V1_ClockStatus) throws(ProtocolError) {
        guard status.ratePpm.isFinite, abs(status.ratePpm) <= 1_000_000 else {
            throw ProtocolError(.badMessage, "ClockStatus: rate_ppm \(status.ratePpm) is not a finite rate")
        }
        guard status.errorBoundNs >= 0, status.errorBoundNs < maxInstant, abs(status.roundTripNs) < maxInstant,
              status.offsetNs.isFinite, abs(status.offsetNs) < Double(maxInstant), abs(status.referenceLocalNs) < maxInstant else {
            throw ProtocolError(.badMessage, "ClockStatus: offset, bound or round trip out of range")
        }
    }

    /// Telemetry's numbers are shown and summed: each must be finite (the CPU temperature
    /// may be NaN, which the protocol defines as "unknown").
    static func checkTelemetry(_ t: Dualcam_V1_Telemetry) throws(ProtocolError) {
        let values = [("capture_fps", t.captureFps), ("encoded_fps", t.encodedFps), ("encode_latency_ms", t.encodeLatencyMs),
                      ("audio_peak_dbfs", t.audioPeakDbfs), ("audio_rms_dbfs", t.audioRmsDbfs)]
        for (name, value) in values where !value.isFinite {
            throw ProtocolError(.badMessage, "Telemetry: \(name) is \(value), not a finite number")
        }
        guard !t.cpuTemperatureC.isInfinite else { throw ProtocolError(.badMessage, "Telemetry: cpu_temperature_c is infinite") }
        guard t.framesDropped < UInt64(maxInstant), t.freeDiskBytes < UInt64(maxInstant),
              t.clockErrorBoundNs >= 0, t.clockErrorBoundNs < maxInstant else {
            throw ProtocolError(.badMessage, "Telemetry: counters out of range")
        }
    }

    /// Preview sizes and rates the agents encode (§16): a small picture for a screen.
    static let previewWidths: ClosedRange<UInt32> = 64...1920
    static let previewHeights: ClosedRange<UInt32> = 64...1080
    static let previewRates: ClosedRange<UInt32> = 1...30
    static let previewBitrates: ClosedRange<UInt32> = 50_000...8_000_000

    static func checkPreviewRequest(_ r: Dualcam_V1_PreviewRequest) throws(ProtocolError) {
        if r.width == 0 { return }
        guard previewWidths.contains(r.width), previewHeights.contains(r.height), r.width % 2 == 0, r.height % 2 == 0 else {
            throw ProtocolError(.badMessage, "PreviewRequest: \(r.width)x\(r.height) is not an even size within 64x64…1920x1080")
        }
        guard previewRates.contains(r.fps) else {
            throw ProtocolError(.badMessage, "PreviewRequest: fps \(r.fps) is outside \(previewRates)")
        }
        guard previewBitrates.contains(r.bitrate) else {
            throw ProtocolError(.badMessage, "PreviewRequest: bitrate \(r.bitrate) is outside \(previewBitrates) bit/s")
        }
    }

    static func checkPreviewFrame(_ f: Dualcam_V1_PreviewFrame) throws(ProtocolError) {
        try checkInstant(f.captureSharedNs, "PreviewFrame capture_shared_ns")
        guard previewWidths.contains(f.width), previewHeights.contains(f.height) else {
            throw ProtocolError(.badMessage, "PreviewFrame: \(f.width)x\(f.height) is outside 64x64…1920x1080")
        }
        guard !f.h264.isEmpty, f.h264.count <= WireProtocol.maxPreviewFrameBytes else {
            throw ProtocolError(.badMessage, "PreviewFrame: \(f.h264.count) bytes of H.264; expected 1…\(WireProtocol.maxPreviewFrameBytes)")
        }
    }

    /// A count of bytes freed on an agent's disk: no disk holds 2^62 bytes.
    static func checkSessionForgotten(_ answer: Dualcam_V1_SessionForgotten) throws(ProtocolError) {
        try checkSessionID(answer.sessionID)
        guard answer.freedBytes < UInt64(maxInstant) else {
            throw ProtocolError(.badMessage, "SessionForgotten: freed_bytes \(answer.freedBytes) is out of range")
        }
        try checkSentences([answer.reason], in: "SessionForgotten reason")
    }

    private static func checkInstant(_ instant: Int64, _ name: String) throws(ProtocolError) {
        guard instant > 0, instant < maxInstant else {
            throw ProtocolError(.badMessage, "\(name) \(instant) is not an instant on the shared clock (1…2^62 ns)")
        }
    }

    private static func checkIndex(_ index: UInt32, in message: String) throws(ProtocolError) {
        guard index < maxSegmentIndex else {
            throw ProtocolError(.badMessage, "\(message): segment index \(index) is above \(maxSegmentIndex)")
        }
    }
}
