import DualCamCore
import DualCamMedia
import DualCamNet
import DualCamProtocol
import Foundation
import NIOConcurrencyHelpers

/// The live preview of every camera, from the agents' PreviewFrames to whoever watches
/// (the studio's viewers). While nobody watches the agents are asked for nothing; with a
/// viewer they are asked for `settings`. Pictures reach viewers straight from the links,
/// not through the rig's event loop: thirty a second per camera would crowd it.
///
/// A viewer that falls behind loses pictures, never waits for them: its queue is short,
/// a picture that does not fit is dropped, and from then on that camera's pictures are
/// held back from it until the next key frame (an H.264 picture after a gap would not
/// decode), which the agent is asked for at once.
public final class PreviewHub: Sendable {
    public struct Settings: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var fps: Int
        public var bitrate: Int

        public init(width: Int = 640, height: Int = 360, fps: Int = 30, bitrate: Int = 1_000_000) {
            self.width = width
            self.height = height
            self.fps = fps
            self.bitrate = bitrate
        }
    }

    /// How a viewer wants its pictures.
    public enum Format: Sendable {
        /// As the agents encoded them: H.264 access units, Annex B.
        case h264
        /// Each a whole JPEG picture, made here for viewers without an H.264 decoder.
        case jpeg
    }

    /// One picture of one camera.
    public struct Picture: Sendable {
        public var camera: Int
        public var captureSharedNanoseconds: Int64
        /// Always true for JPEG; for H.264 an IDR with SPS and PPS in front.
        public var keyframe: Bool
        public var width: Int
        public var height: Int
        public var format: Format
        public var data: Data
        /// Where its time went, for the studio's trace (docs/STUDIO.md).
        public var trace = Trace()

        public init(camera: Int, captureSharedNanoseconds: Int64, keyframe: Bool, width: Int, height: Int,
                    format: Format, data: Data, trace: Trace = Trace()) {
            self.camera = camera
            self.captureSharedNanoseconds = captureSharedNanoseconds
            self.keyframe = keyframe
            self.width = width
            self.height = height
            self.format = format
            self.data = data
            self.trace = trace
        }
    }

    /// Instants of one picture on its way, on the shared clock (0: not known). The agent's
    /// index leaves a gap where the agent encoded a picture and could not send it.
    public struct Trace: Sendable {
        public var agentIndex: UInt64 = 0
        public var agentSent: Int64 = 0
        public var hubReceived: Int64 = 0

        public init(agentIndex: UInt64 = 0, agentSent: Int64 = 0, hubReceived: Int64 = 0) {
            self.agentIndex = agentIndex
            self.agentSent = agentSent
            self.hubReceived = hubReceived
        }
    }

    public let settings: Settings
    private let clock: any TimeSource
    private let viewers = NIOLockedValueBox<[UInt64: Viewer]>([:])
    private let nextViewer = NIOLockedValueBox<UInt64>(0)
    private let codecs = NIOLockedValueBox<[Int: String]>([:])
    private let keyframesWanted = NIOLockedValueBox<Set<Int>>([])
    /// Told when the demand changes or a key frame is wanted, so the rig acts at once.
    private let poke = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)

    private let transcoders = NIOLockedValueBox<[Int: PreviewTranscoder]>([:])
    /// JPEG pictures are made at most this often per camera: a tablet's fallback, not
    /// the main screen, and each costs a decode-to-JPEG here.
    public static let jpegRate = 15

    private struct Viewer {
        var format: Format
        var continuation: AsyncStream<Picture>.Continuation
        /// Cameras whose next picture must be a key frame for this viewer.
        var waitingForKey: Set<Int>
    }

    /// `clock` reads the shared clock (on the coordinator, its own monotonic clock).
    public init(settings: Settings = Settings(), clock: any TimeSource = SystemClock()) {
        self.settings = settings
        self.clock = clock
    }

    func onChange(_ body: @escaping @Sendable () -> Void) {
        poke.withLockedValue { $0 = body }
    }

    /// Pictures of every camera until the stream is dropped (or its task cancelled).
    /// Each camera starts at a key frame.
    public func watch(_ format: Format = .h264) -> AsyncStream<Picture> {
        let id = nextViewer.withLockedValue { $0 += 1; return $0 }
        let (stream, continuation) = AsyncStream.makeStream(of: Picture.self, bufferingPolicy: .bufferingOldest(6))
        continuation.onTermination = { [weak self] _ in
            self?.viewers.withLockedValue { _ = $0.removeValue(forKey: id) }
            self?.changed()
        }
        viewers.withLockedValue {
            $0[id] = Viewer(format: format, continuation: continuation,
                            waitingForKey: format == .h264 ? Set(0..<Self.maxCameras) : [])
        }
        keyframesWanted.withLockedValue { $0.formUnion(0..<Self.maxCameras) }
        changed()
        return stream
    }

    /// Camera indices a viewer may name (the protocol allows no more per rig).
    public static let maxCameras = 64

    /// True while at least one viewer watches.
    public var isWatched: Bool { viewers.withLockedValue { !$0.isEmpty } }

    /// The WebCodecs codec string of a camera's stream (from its last SPS), once seen.
    public func codec(camera: Int) -> String? { codecs.withLockedValue { $0[camera] } }

    /// A viewer's decoder fell behind and skips to the next key frame: ask for one now.
    /// The agent gets at most one request per rig tick for it, however many viewers ask.
    public func requestKeyframe(camera: Int) {
        guard (0..<Self.maxCameras).contains(camera) else { return }
        let first = keyframesWanted.withLockedValue { $0.insert(camera).inserted }
        if first { changed() }
    }

    /// Cameras whose viewers wait for a key frame; cleared by the call.
    func takeKeyframeRequests() -> Set<Int> {
        keyframesWanted.withLockedValue { wanted in defer { wanted = [] }; return wanted }
    }

    /// A PreviewFrame from camera `camera`'s link (checked by the protocol machine).
    func receive(camera: Int, _ frame: Dualcam_V1_PreviewFrame) {
        let picture = Picture(camera: camera, captureSharedNanoseconds: frame.captureSharedNs, keyframe: frame.keyframe,
                              width: Int(frame.width), height: Int(frame.height), format: .h264, data: frame.h264,
                              trace: Trace(agentIndex: frame.index, agentSent: frame.sentSharedNs, hubReceived: clock.now))
        if frame.keyframe, let codec = H264Bitstream.codecString([UInt8](frame.h264.prefix(256))) {
            codecs.withLockedValue { $0[camera] = codec }
        }
        var wantKey = false
        var wantJPEG = false
        viewers.withLockedValue { viewers in
            for (id, viewer) in viewers {
                guard viewer.format == .h264 else {
                    wantJPEG = true
                    continue
                }
                if viewer.waitingForKey.contains(camera) {
                    guard frame.keyframe else { continue }
                    viewers[id]!.waitingForKey.remove(camera)
                }
                if case .dropped = viewer.continuation.yield(picture) {
                    viewers[id]!.waitingForKey.insert(camera)
                    wantKey = true
                }
            }
        }
        if wantKey {
            keyframesWanted.withLockedValue { _ = $0.insert(camera) }
            changed()
        }
        transcoder(camera, wanted: wantJPEG)?.push(picture)
    }

    /// The camera's JPEG maker while a JPEG viewer watches; let go when none does.
    private func transcoder(_ camera: Int, wanted: Bool) -> PreviewTranscoder? {
        transcoders.withLockedValue { all in
            guard wanted else {
                all[camera] = nil
                return nil
            }
            if let existing = all[camera] { return existing }
            let made = PreviewTranscoder(camera: camera, fps: Self.jpegRate) { [weak self] picture in
                self?.deliverJPEG(picture)
            }
            all[camera] = made
            // It starts at a key frame: ask for one rather than wait up to a second.
            keyframesWanted.withLockedValue { _ = $0.insert(camera) }
            return made
        }
    }

    private func deliverJPEG(_ picture: Picture) {
        viewers.withLockedValue { viewers in
            for viewer in viewers.values where viewer.format == .jpeg {
                _ = viewer.continuation.yield(picture)  // a full queue drops it: the next one is whole
            }
        }
    }

    private func changed() {
        poke.withLockedValue { $0 }?()
    }
}
