import DualCamCore
import Synchronization

/// The live composite's `auto` during the take: the core's `PresetGovernor` fed what each
/// composite frame cost, asked at every keyframe of the composite (one per segment's
/// length, where x264 puts an IDR anyway) whether to step to a faster preset, or back
/// towards the one measured before the take once the headroom has been back for a while.
/// The new encoder's first frame is that IDR, so a switch costs no frame.
///
/// A frame's cost is its encode (what a preset changes) plus its share of decoding every
/// camera and its compositing (what no preset changes): the governor counts both in the
/// load and scales only the encode in its predictions. Time is the composite's own
/// presentation time, so "calm for 10 s" means 10 s of the combined file.
struct CompositeSteering {
    private var governor: PresetGovernor
    let gopFrames: Int64
    private(set) var switches: [SessionManifest.PresetSwitch] = []
    /// Whether any switch went to a faster preset (the measurement was optimistic).
    private(set) var steppedFaster = false

    /// The composite's keyframe interval is a segment's length.
    private let segmentNanoseconds: Int64

    init(measurement: CompositeMeasurement, rate: FrameRate, gopFrames: Int, stop: StopInstant = StopInstant()) {
        self.stop = stop
        governor = PresetGovernor(chosen: measurement.preset, rate: rate, speeds: measurement.encodeSpeeds)
        self.gopFrames = Int64(max(gopFrames, 1))
        segmentNanoseconds = rate.instant(ofFrame: self.gopFrames)
    }

    var current: String { governor.current }

    /// Where the take stops, in presentation time (Int64.max until known): set from the
    /// rig's loop while the compose queue may be in the middle of a batch, hence atomic.
    let stop: StopInstant

    /// The take's last segment (from one segment's length before the stop) is what the
    /// files wait for after the stop: it goes at the fastest preset, from the keyframe that
    /// begins it (a new encoder starts with an IDR), so the combined file is final as soon
    /// as with a fixed `ultrafast`. Costs the last segment's compression.
    mutating func beforeFrame(index: Int64, instant: Int64) -> String? {
        if instant >= stop.presentationNanoseconds - segmentNanoseconds {
            let fastest = PresetChoice.ladder[0]
            // Every switch is listed, so the last one (else the choice) is the encoder's.
            guard (switches.last?.preset ?? governor.current) != fastest else { return nil }
            switches.append(.init(presentationNanoseconds: instant, preset: fastest,
                                  reason: "the take's last segment at \(fastest), for files final sooner after the stop"))
            return fastest
        }
        guard index > 0, index % gopFrames == 0 else { return nil }
        let from = governor.current
        guard case .switchTo(let preset, let reason) = governor.segmentBoundary(now: instant) else { return nil }
        let rung = { (name: String) in PresetChoice.ladder.firstIndex(of: name) ?? 0 }
        if rung(preset) < rung(from) { steppedFaster = true }
        // The governor speaks of "the encoder": here its load is the whole composite's.
        switches.append(.init(presentationNanoseconds: instant, preset: preset, reason: "composite: " + reason))
        return preset
    }

    /// One frame went out: `encodeNanoseconds` in the encoder, `fixedNanoseconds` decoding
    /// its share of the cameras and compositing it.
    mutating func frameDone(encodeNanoseconds: Int64, fixedNanoseconds: Int64) {
        governor.frameEncoded(encodeNanoseconds: encodeNanoseconds, fixedNanoseconds: fixedNanoseconds, queueDepth: 0, queueCapacity: 0)
    }
}

/// The take's stop in the composite's presentation time, shared between the rig's loop
/// (which learns it) and the compose queue (which reads it every frame).
final class StopInstant: Sendable {
    private let value = Atomic<Int64>(.max)

    var presentationNanoseconds: Int64 { value.load(ordering: .relaxed) }

    func set(_ presentationNanoseconds: Int64) { value.store(presentationNanoseconds, ordering: .relaxed) }
}
