import DualCamMedia
import Logging
import Synchronization

/// The programme's live streams (`--stream URL`, repeatable): one sender per destination,
/// fed the combined file's own packets as its encoder writes them (one encode serves
/// the file and the streams; with a stream the encoder's bitrate has a ceiling,
/// `SessionPlan.streamMaxBitrate`, so that platforms take it). Started at the composite's
/// first frame, stopped when the take's file is finished.
final class LiveOut: Sendable {
    let destinations: [StreamDestination]
    private let logger: Logger
    private let budgetBytes: Int
    private let senders = Mutex<[StreamSender]>([])

    /// `maxBitrate`: the programme's ceiling; each destination may fall four seconds of
    /// it behind before its backlog is dropped.
    init(destinations: [StreamDestination], maxBitrate: Int, logger: Logger) {
        self.destinations = destinations
        self.logger = logger
        budgetBytes = max(maxBitrate / 8 * 4, 1 << 20)
    }

    /// The encoder is open: connect every destination (each on its own thread).
    func start(video: CodecParameters, audio: AudioParameters?) {
        let made = destinations.map {
            StreamSender(destination: $0, video: video, audio: audio, budgetBytes: budgetBytes, logger: logger)
        }
        senders.withLock { $0 = made }
        for sender in made { sender.start() }
    }

    /// One packet of the programme, as written to the file.
    func offer(_ packet: EncodedPacket, audio: Bool) {
        for sender in senders.withLock({ $0 }) { sender.offer(packet, audio: audio) }
    }

    func stop() {
        for sender in senders.withLock({ $0 }) { sender.stop() }
    }

    /// Each destination now (before the first frame: all connecting).
    var statuses: [LiveStreamStatus] {
        let started = senders.withLock { $0 }
        guard !started.isEmpty else {
            return destinations.map { .init(destination: $0.shown, state: .connecting, kbps: 0, droppedFrames: 0, reconnects: 0, liveSeconds: 0) }
        }
        return started.map(\.liveStatus)
    }

    /// Each destination's history, for the manifest (a destination never started: none).
    var records: [StreamRecord] { senders.withLock { $0 }.map(\.record) }
}
