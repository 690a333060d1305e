import DualCamMedia
import Logging
import Synchronization

/// The programme's live streams (`--stream URL`, repeatable): one sender per destination,
/// fed the combined file's own packets as its encoder writes them (one encode serves
/// the file and the streams; with a stream the encoder's bitrate has a ceiling,
/// `TakePlan.streamMaxBitrate`, so that platforms take it). Started at the composite's
/// first frame, stopped when the take's file is finished.
final class LiveOut: Sendable {
    let destinations: [StreamDestination]
    private let logger: Logger
    private let budgetBytes: Int
    private let senders = Mutex<[StreamSender]>([])
    /// Go live / End live, for senders started later too.
    private let live: Mutex<Bool>

    /// `maxBitrate`: the programme's ceiling; each destination may fall four seconds of
    /// it behind before its backlog is dropped.
    init(destinations: [StreamDestination], maxBitrate: Int, live: Bool = true, logger: Logger) {
        self.live = Mutex(live)
        self.destinations = destinations
        self.logger = logger
        budgetBytes = max(maxBitrate / 8 * 4, 256 << 10)
    }

    /// The encoder is open: connect every destination (each on its own thread).
    func start(video: CodecParameters, audio: AudioParameters?) {
        let made = destinations.map {
            StreamSender(destination: $0, video: video, audio: audio, budgetBytes: budgetBytes, logger: logger)
        }
        senders.withLock { $0 = made }
        let on = live.withLock { $0 }
        for sender in made {
            sender.setLive(on)
            sender.start()
        }
    }

    /// One packet of the programme, as written to the file.
    func offer(_ packet: EncodedPacket, audio: Bool) {
        for sender in senders.withLock({ $0 }) { sender.offer(packet, audio: audio) }
    }

    /// End live (false) closes every destination and sends nothing until Go live (true),
    /// which connects them again; the recording never notices.
    func setLive(_ on: Bool) {
        live.withLock { $0 = on }
        for sender in senders.withLock({ $0 }) { sender.setLive(on) }
    }

    func stop() {
        for sender in senders.withLock({ $0 }) { sender.stop() }
    }

    /// Each destination now (before the first frame: all connecting).
    var statuses: [LiveStreamStatus] {
        let started = senders.withLock { $0 }
        guard !started.isEmpty else {
            let state: LiveStreamStatus.State = live.withLock { $0 } ? .connecting : .off
            return destinations.map { .init(destination: $0.shown, state: state, kbps: 0, droppedFrames: 0, reconnects: 0, liveSeconds: 0) }
        }
        return started.map(\.liveStatus)
    }

    /// Each destination's history, for the manifest (a destination never started: none).
    var records: [StreamRecord] { senders.withLock { $0 }.map(\.record) }
}
