import DualCamCore
import DualCamMedia
import Foundation

/// A V4L2 camera. Capture instants are the driver's buffer timestamps (CLOCK_MONOTONIC,
/// stamped by the kernel at the end of exposure or transfer), mapped onto the agent's
/// local clock; losses are the gaps in the driver's sequence numbers.
struct V4L2Source: FrameSource {
    /// A camera that delivers nothing for this long is treated as gone.
    static let stallMilliseconds: Int32 = 5_000
    private let capture: V4L2Capture
    private let clock: AgentClock
    private let rate: FrameRate
    private let frameLog: FileHandle?
    /// Raw formats are converted into these; compressed ones need none.
    private let pictures: PicturePool?
    /// How the start was placed on the grid (nil: started as it came, no clock estimate
    /// or `--no-phase-lock`).
    let startAlignment: StartAlignment.Report?

    /// `alignStart`: start the camera so its first frame lands on the shared grid (it
    /// cannot be steered after; the frames' stamps tell how it drifts).
    init(device: String, pixelFormat: String?, width: Int, height: Int, rate: FrameRate, clock: AgentClock,
         frameLogPath: String? = nil, alignStart: Bool = true) throws {
        if let frameLogPath {
            guard FileManager.default.createFile(atPath: frameLogPath, contents: nil),
                  let handle = FileHandle(forWritingAtPath: frameLogPath) else {
                throw V4L2Error(code: errno, call: "--frame-log", device: device, detail: "cannot write \(frameLogPath)")
            }
            frameLog = handle
        } else {
            frameLog = nil
        }
        var fourcc: FourCC?
        if let pixelFormat {
            guard let code = FourCC(pixelFormat.uppercased()) else {
                throw V4L2Error(code: 0, call: "--pixel-format", device: device, detail: "\(pixelFormat) is not a four-character code like YUYV or MJPG")
            }
            fourcc = code
        }
        capture = try V4L2Capture(path: device, width: width, height: height, rate: rate, fourcc: fourcc)
        self.clock = clock
        self.rate = rate
        // As many pictures as the queue holds, one being encoded and one being filled.
        pictures = capture.convertedSize.map { size in
            PicturePool(width: size.width, height: size.height,
                        limit: RecordingPipeline.pacedQueueCapacity(width: size.width, height: size.height, rate: rate) + 2,
                        strideAlignment: RawPictureConverter.strideAlignment)
        }
        if alignStart, let estimate = clock.estimate {
            let error = clock.simulatedError
            startAlignment = try capture.startAligned(
                StartAlignment(rate: capture.format.rate ?? rate),
                toGrid: { estimate.shared(fromLocal: LocalInstant(nanoseconds: error.local(fromTrue: $0))).nanoseconds },
                fromGrid: { error.trueTime(fromLocal: estimate.local(fromShared: SharedInstant(nanoseconds: $0)).nanoseconds) },
                timeoutMilliseconds: Self.stallMilliseconds)
        } else {
            startAlignment = nil
            try capture.start()
        }
    }

    var description: String {
        "v4l2 \(capture.path): \(capture.format)" + (startAlignment.map { ", \($0.sentence)" } ?? "")
    }
    var codedSize: (width: Int, height: Int) { (capture.format.width, capture.format.height) }
    var deliversH264: Bool { capture.format.fourcc == .h264 }
    var isPaced: Bool { true }

    mutating func next(stopLocalNanoseconds: () -> Int64?) throws -> CapturedFrame? {
        // Corrupt buffers skipped on the way count as lost before the frame returned.
        var lost = 0
        while true {
            if let stop = stopLocalNanoseconds(), clock.localNow() >= stop + rate.periodNanoseconds {
                return nil
            }
            let target = pictures?.take()
            let dequeued = try target.map { target in
                try target.update { try capture.next(timeoutMilliseconds: Self.stallMilliseconds, into: &$0) }
            } ?? capture.next(timeoutMilliseconds: Self.stallMilliseconds)
            guard let picture = dequeued else {
                if let stop = stopLocalNanoseconds(), clock.localNow() >= stop { return nil }
                throw V4L2Error(code: 0, call: "capture", device: capture.path,
                                detail: "no frame for \(Self.stallMilliseconds / 1000) s; the camera stalled or was unplugged (segments so far are kept)")
            }
            let local = clock.simulatedError.local(fromTrue: picture.monotonicNanoseconds)
            if let stop = stopLocalNanoseconds(), local >= stop - rate.periodNanoseconds / 2 { return nil }
            lost += picture.droppedBefore
            let payload: FramePayload
            switch picture.payload {
            case .converted:
                guard let target else { preconditionFailure("a raw picture needs a pool picture") }
                payload = .picture(target)
            case .compressed(let bytes): payload = capture.format.fourcc == .h264 ? .h264(bytes) : .mjpeg(bytes)
            case .corrupt:
                lost += 1
                continue
            }
            frameLog?.write(Data("\(picture.sequence) \(picture.monotonicNanoseconds)\n".utf8))
            return CapturedFrame(payload: payload, localCaptureNanoseconds: local, droppedBefore: lost)
        }
    }
}
