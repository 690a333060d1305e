import DualCamCore
import DualCamMedia
import DualCamNet

/// Frames in, combined file out: the core's pairer puts the cameras' frames on the
/// output grid, the compositor lays out each tick with the spec the layout timeline
/// gives for it, the filter grades it, and the encoder writes it. Live composition and
/// `recompose` both go through here, so a re-render is the same picture as the live one.
final class CompositeRenderer {
    let outputPath: String
    private let rate: FrameRate
    private var pairer: FramePairer<YUV420Image>
    private let compositor: Compositor
    /// The filter over the session (changed while recording, like the layout).
    var filters: ChangeTimeline<FilterSetting>
    /// Each setting's lookup tables, built once (a change back and forth costs nothing).
    private var built: [FilterSetting: Filter] = [:]
    /// Settable until the first frame opens the writer (the live composite's measured preset).
    private(set) var encoder: VideoEncoderSettings
    private let tags: MP4Tags
    /// Opened at the first tick, when the cameras' sound (if any) is known.
    private var writer: MP4VideoWriter?
    /// The live streams, fed the writer's packets from its opening (nil: none).
    var liveOut: LiveOut?
    /// The streams' own encode, at their size (nil: they get the file's packets).
    var streamEncode: StreamEncode?
    var timeline: LayoutTimeline
    private(set) var framesComposed = 0
    /// The end of the last composed frame.
    private var composedUntil: Int64 = 0
    /// The sound mix, once a camera's sound format is known (`openAudio`).
    private var mixer: AudioMixer?
    private var mixRate = 0
    /// The sound mix over the session (changed while recording, like the layout).
    var mixes: ChangeTimeline<AudioMixSpec>
    /// The sound streams' names: the cameras', then any imported recorder's that the mix
    /// takes (`recompose --mix NAME`), whose sound has no picture.
    private let soundNames: [String]
    /// Sound is mixed as far as every camera still sending sound has delivered it, up to
    /// the last composed picture, and never further behind the pictures than this: a
    /// camera whose sound lags more (its segment's last audio packets ride in its next
    /// segment, or it lost its sound) is heard as silence there. A fixed lag alone held
    /// a live stream's pictures for the sound of the next segment: FLV interleaves.
    static let mixLagNanoseconds: Int64 = 500_000_000
    /// Cameras (and imported recorders) whose sound has arrived, and those that will send
    /// no more: what the mix and the director wait for.
    private var soundHeard = Set<Int>()
    private var soundGone = Set<Int>()
    private var soundAwaited: [Int] { soundHeard.subtracting(soundGone).sorted() }

    /// A take abandoned before its file was finished ends the streams' encoding thread too.
    deinit { streamEncode?.finish() }

    init(outputPath: String, streamCount: Int, width: Int, height: Int, rate: FrameRate,
         latencyWindowNanoseconds: Int64, timeline: LayoutTimeline, filters: ChangeTimeline<FilterSetting>,
         encoder: VideoEncoderSettings, tags: MP4Tags, mixes: ChangeTimeline<AudioMixSpec> = ChangeTimeline(initial: .all),
         cameraNames: [String], soundNames: [String]? = nil, director: DirectorSettings? = nil,
         loudnessTarget: Double? = ProgrammeLoudness.defaultTarget) throws {
        self.loudnessTarget = loudnessTarget
        self.outputPath = outputPath
        self.rate = rate
        // A camera silent for longer than a second is shown repeating, then as "no signal".
        pairer = FramePairer(streamCount: streamCount, rate: rate, latencyWindowNanoseconds: latencyWindowNanoseconds,
                             repeatLimit: Int(rate.numerator / rate.denominator))
        compositor = Compositor(outputWidth: width, outputHeight: height, scaler: SwsScaler())
        compositor.spec = timeline.initial
        self.timeline = timeline
        self.filters = filters
        self.encoder = encoder
        self.tags = tags
        self.mixes = mixes
        self.soundNames = soundNames ?? cameraNames
        self.streamCount = streamCount
        direction = director.map { CompositeDirection(settings: $0, base: timeline.initial, cameras: streamCount) }
    }

    /// The file's sound levelled to this loudness (LUFS), nil: the plain mix.
    private let loudnessTarget: Double?
    private var programme: ProgrammeSound?

    /// What the manifest says of the sound's loudness (nil without sound or levelling).
    func loudnessRecord() throws -> SessionManifest.Loudness? { try programme?.record() }

    /// The director, when the file is cut by it (`--director auto`).
    private(set) var direction: CompositeDirection?
    /// Ticks the pairer released that wait for the director to have heard up to them.
    private var held: [OutputTick<YUV420Image>] = []

    /// The operator chose `spec` by hand from `presentationNanoseconds`: with a director,
    /// that takes the programme over until `handBack`.
    func operatorLayout(at presentationNanoseconds: Int64, to spec: LayoutSpec) {
        direction?.takeOver(at: presentationNanoseconds, base: spec)
        timeline.change(at: presentationNanoseconds, to: spec)
    }

    /// The director has the programme again from the frame at `presentationNanoseconds`.
    func handBack(at presentationNanoseconds: Int64) { direction?.handBack(at: presentationNanoseconds) }

    private let streamCount: Int
    /// The live composite's `auto`: steps the encoder's preset while recording (nil: a
    /// fixed preset, and every recompose).
    var steering: CompositeSteering?
    /// Decoding the cameras' latest batch, per composite frame: part of each frame's cost.
    var decodeNanosecondsPerFrame: Int64 = 0

    /// The preset to open the encoder with; ignored once the first frame is written.
    func usePreset(_ preset: String) {
        guard writer == nil else { return }
        encoder.preset = preset
    }

    /// The preset the composite is encoded with now.
    var currentPreset: String { writer?.settings.preset ?? encoder.preset }

    /// Keeps a few pictures for the session's contact sheet (live composition only: a
    /// recompose leaves the sheet made from the live composite).
    var contactSheet: ContactSheetRecorder?

    /// Gives the combined file a sound track at `sampleRate`; called before the first
    /// tick is composed, by whoever has seen the cameras' sound. The first caller sets
    /// the rate; more channels than before widen the mix while nothing is written yet.
    func openAudio(sampleRate: Int, channels: Int) {
        guard writer == nil else { return }
        if let mixer, mixer.channels >= channels { return }
        mixRate = mixRate == 0 ? sampleRate : mixRate
        direction?.listen(sampleRate: mixRate)
        mixer = AudioMixer(streamCount: soundNames.count, channels: channels, gains: mixes.initial.gains(for: soundNames))
    }

    /// The sample rate of the mix, 0 while it has no sound.
    var audioSampleRate: Int { mixRate }

    /// A camera's decoded sound, on the session's timeline.
    func pushAudio(stream: Int, _ chunk: DecodedAudio) {
        guard mixer != nil, mixRate > 0 else { return }
        let position = chunk.ptsNanoseconds * Int64(mixRate) / 1_000_000_000
        mixer!.push(stream: stream, startPosition: position, samples: chunk.samples, sourceChannels: chunk.channels)
        soundHeard.insert(stream)
        // The director listens to the cameras: who speaks is whose camera to show.
        if stream < streamCount {
            direction?.push(stream: stream, startPosition: position, samples: chunk.samples, channels: chunk.channels)
        }
    }

    /// The camera's sound ends here (it stopped, or the take gave it up): neither the mix
    /// nor the director waits for it any more.
    func soundEnded(stream: Int) { soundGone.insert(stream) }

    private func openedWriter() throws -> MP4VideoWriter {
        if let writer { return writer }
        let audio = mixer.map { (sampleRate: mixRate, channels: $0.channels) }
        if let audio, let loudnessTarget {
            programme = try ProgrammeSound(channels: audio.channels, sampleRate: audio.sampleRate, targetLUFS: loudnessTarget)
            mixer?.clips = false
        }
        let opened = try MP4VideoWriter(outputPath: outputPath, settings: encoder, tags: tags,
                                        audio: audio)
        writer = opened
        if let liveOut, let streamEncode {
            // Their own pictures; the file's sound.
            liveOut.start(video: streamEncode.parameters, audio: opened.audioParameters)
            opened.tap = { packet, audio in if audio { liveOut.offer(packet, audio: true) } }
        } else if let liveOut {
            liveOut.start(video: opened.videoParameters, audio: opened.audioParameters)
            opened.tap = { liveOut.offer($0, audio: $1) }
        }
        return opened
    }

    private func writeMix(upToNanoseconds end: Int64) throws {
        guard var m = mixer, let writer else { return }
        let target = max(0, end) * Int64(mixRate) / 1_000_000_000
        // A change of mix lands on the sample of its instant: the span is mixed in pieces,
        // each with the gains in force over it.
        while target > m.position {
            var spec = mixes.initial
            var pieceEnd = target
            for change in mixes.changes {
                let at = sample(change.presentationNanoseconds)
                if at <= m.position { spec = change.value } else { pieceEnd = min(pieceEnd, at); break }
            }
            m.gains = spec.gains(for: soundNames)
            let piece = m.mix(upTo: pieceEnd)
            try writer.writeAudio(try programme?.process(piece) ?? piece)
        }
        mixer = m
    }

    private func sample(_ nanoseconds: Int64) -> Int64 {
        max(0, nanoseconds) * Int64(mixRate) / 1_000_000_000
    }

    /// The cameras' phase so far as the pairer put their frames together.
    var framePhase: FramePhase { pairer.phase }

    func push(stream: Int, frame: DecodedFrame) {
        pairer.push(stream: stream, presentationNanoseconds: frame.ptsNanoseconds, payload: frame.image)
    }

    /// Composes and writes every tick the pairer can release now (and, with a director,
    /// that it has heard up to; `finishing`: all of them).
    func composeReady(finishing: Bool = false) throws {
        held += pairer.drainReady()
        while let tick = held.first {
            let instant = rate.instant(ofFrame: tick.index)
            guard direction?.mayCompose(at: instant, finishing: finishing,
                                        awaited: soundAwaited.filter { $0 < streamCount }) ?? true else { break }
            held.removeFirst()
            direction?.beforeFrame(at: instant, timeline: &timeline)
            let started = MonotonicTime.now()
            compositor.spec = timeline.spec(at: instant)
            var picture = compositor.compose(tick.frames.map(\.payload))
            let filter = filter(for: filters.value(at: instant))
            if !filter.isIdentity { filter.apply(to: &picture) }
            contactSheet?.offer(picture, tick: tick.index)
            let writer = try openedWriter()
            if let preset = steering?.beforeFrame(index: tick.index, instant: instant) {
                try writer.switchEncoder(preset: preset)
            }
            let encodeStart = MonotonicTime.now()
            try writer.write(picture, ptsNanoseconds: instant)
            streamEncode?.offer(picture, ptsNanoseconds: instant)
            steering?.frameDone(encodeNanoseconds: MonotonicTime.now() - encodeStart,
                                fixedNanoseconds: encodeStart - started + decodeNanosecondsPerFrame)
            framesComposed += 1
            composedUntil = rate.instant(ofFrame: tick.index + 1)
        }
        if framesComposed > 0 { try writeMix(upToNanoseconds: mixEnd()) }
    }

    /// Where the mix may run to now (`mixLagNanoseconds`).
    private func mixEnd() -> Int64 {
        guard let mixer, mixRate > 0 else { return composedUntil - Self.mixLagNanoseconds }
        let end = mixer.horizon(pictures: sample(composedUntil), maxLag: sample(Self.mixLagNanoseconds),
                                awaiting: soundAwaited)
        return end * 1_000_000_000 / Int64(mixRate)
    }

    private func filter(for setting: FilterSetting) -> Filter {
        if let filter = built[setting] { return filter }
        let filter = setting.filter
        built[setting] = filter
        return filter
    }

    /// Composes the rest up to `endPresentationNanoseconds` (nil: the last frame) and
    /// closes the file.
    func finish(endPresentationNanoseconds: Int64?) throws -> PairingStatistics {
        pairer.finishAll(endPresentationNanoseconds: endPresentationNanoseconds)
        try composeReady(finishing: true)
        let writer = try openedWriter()
        try writeMix(upToNanoseconds: endPresentationNanoseconds ?? composedUntil)
        if let programme { try writer.writeAudio(try programme.flush()) }
        streamEncode?.finish()
        try writer.finish()
        return pairer.statistics
    }
}
