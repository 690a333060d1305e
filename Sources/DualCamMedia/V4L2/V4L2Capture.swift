import CV4L2
import DualCamCore
import Glibc

/// One dequeued camera picture.
public struct CameraPicture {
    public enum Payload {
        /// A raw format, converted to yuv420p at the wanted size into the caller's picture.
        case converted
        /// An MJPEG picture or an H.264 access unit, as the camera sent it.
        case compressed([UInt8])
        /// The driver flagged the buffer as corrupt (V4L2_BUF_FLAG_ERROR): a lost frame.
        case corrupt
    }
    public var payload: Payload
    /// CLOCK_MONOTONIC instant the driver stamped on the buffer.
    public var monotonicNanoseconds: Int64
    public var sequence: UInt32
    /// Pictures the driver skipped since the previous one (sequence gaps).
    public var droppedBefore: Int
}

/// What the camera agreed to after negotiation.
public struct NegotiatedFormat: Sendable, CustomStringConvertible {
    public var fourcc: FourCC
    public var width: Int
    public var height: Int
    public var bytesPerLine: Int
    public var rate: FrameRate?

    public var description: String {
        "\(fourcc) \(width)x\(height)" + (rate.map { " @ \($0.decimalText) fps" } ?? " (rate not settable)")
    }
}

/// Memory-mapped streaming capture from a V4L2 camera. Not thread-safe: one capture
/// thread owns it.
public final class V4L2Capture {
    public static let bufferCount: UInt32 = 6
    public let path: String
    public let format: NegotiatedFormat
    private let device: V4L2Device
    private var buffers: [UnsafeMutableRawBufferPointer] = []
    private var converter: RawPictureConverter?
    private var lastSequence: UInt32?
    private var streaming = false

    /// Opens `path` and negotiates `fourcc` (nil: pick per `FormatChoice`) at the wanted
    /// size and rate; raw pictures are converted to `width`x`height` if the camera
    /// settles on another size.
    public init(path: String, width: Int, height: Int, rate: FrameRate, fourcc wanted: FourCC? = nil,
                allowPassThrough: Bool = true) throws {
        let device = try V4L2Device(path: path)
        let cap = try device.capabilities()
        let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 else {
            throw V4L2Error(code: 0, call: "VIDIOC_QUERYCAP", device: path,
                            detail: "not a video capture node; `dualcam-agent cameras` lists the cameras")
        }
        guard caps & UInt32(V4L2_CAP_STREAMING) != 0 else {
            throw V4L2Error(code: 0, call: "VIDIOC_QUERYCAP", device: path, detail: "the driver offers no streaming I/O")
        }
        let formats = try V4L2Catalog.formats(of: device)
        let choice = try wanted ?? FormatChoice.pick(from: formats, width: width, height: height, rate: rate,
                                                     allowPassThrough: allowPassThrough, device: path)
        var fmt = v4l2_format()
        fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        fmt.fmt.pix.width = UInt32(width)
        fmt.fmt.pix.height = UInt32(height)
        fmt.fmt.pix.pixelformat = choice.rawValue
        fmt.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try device.control(dc_vidioc_s_fmt(), "VIDIOC_S_FMT", &fmt, detail: "\(choice) \(width)x\(height)")
        let got = FourCC(rawValue: fmt.fmt.pix.pixelformat)
        guard got == choice else {
            // Drivers substitute silently (vivid answers MJPG with YUYV).
            throw V4L2Error(code: 0, call: "VIDIOC_S_FMT", device: path,
                            detail: "asked for \(choice), the camera gave \(got); pick one that `dualcam-agent cameras` lists")
        }
        // After S_FMT some drivers fall back to a slow default rate; set it explicitly.
        var parm = v4l2_streamparm()
        parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        var negotiatedRate: FrameRate?
        if (try? device.control(dc_vidioc_g_parm(), "VIDIOC_G_PARM", &parm)) != nil,
           parm.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0 {
            parm.parm.capture.timeperframe = v4l2_fract(numerator: UInt32(rate.denominator), denominator: UInt32(rate.numerator))
            try device.control(dc_vidioc_s_parm(), "VIDIOC_S_PARM", &parm, detail: "\(rate.framesPerSecond) fps")
            let t = parm.parm.capture.timeperframe
            if t.numerator > 0 { negotiatedRate = FrameRate(Int64(t.denominator), Int64(t.numerator)) }
        }
        self.device = device
        self.path = path
        self.format = NegotiatedFormat(fourcc: got, width: Int(fmt.fmt.pix.width), height: Int(fmt.fmt.pix.height),
                                       bytesPerLine: Int(fmt.fmt.pix.bytesperline), rate: negotiatedRate)
        if RawPictureConverter.supported.contains(got) {
            converter = try RawPictureConverter(fourcc: got, width: format.width, height: format.height,
                                                targetWidth: width, targetHeight: height)
        }
        try mapBuffers()
    }

    deinit {
        if streaming { stop() }
        for buffer in buffers { _ = v4l2_munmap(buffer.baseAddress, buffer.count) }
    }

    private func mapBuffers() throws {
        var request = v4l2_requestbuffers()
        request.count = Self.bufferCount
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try device.control(dc_vidioc_reqbufs(), "VIDIOC_REQBUFS", &request, detail: "\(Self.bufferCount) mmap buffers")
        guard request.count >= 4 else {
            throw V4L2Error(code: 0, call: "VIDIOC_REQBUFS", device: path,
                            detail: "the driver granted \(request.count) buffers; at least 4 are needed not to lose frames")
        }
        for index in 0..<request.count {
            var buffer = v4l2_buffer()
            buffer.index = index
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            try device.control(dc_vidioc_querybuf(), "VIDIOC_QUERYBUF", &buffer)
            let length = Int(buffer.length)
            let address = v4l2_mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, device.fd, Int64(buffer.m.offset))
            guard let address, address != dc_map_failed() else {
                throw V4L2Error(code: errno, call: "mmap", device: path, detail: "buffer \(index), \(length) bytes")
            }
            buffers.append(UnsafeMutableRawBufferPointer(start: address, count: length))
        }
    }

    /// Queues every buffer and starts streaming; returns the CLOCK_MONOTONIC instant just
    /// before the stream-on call (from which a start latency is measured).
    @discardableResult
    public func start() throws -> Int64 {
        for index in buffers.indices { try queue(UInt32(index)) }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        lastSequence = nil
        let instant = Self.monotonicNow()
        try device.control(dc_vidioc_streamon(), "VIDIOC_STREAMON", &type)
        streaming = true
        return instant
    }

    public func stop() {
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try? device.control(dc_vidioc_streamoff(), "VIDIOC_STREAMOFF", &type)
        streaming = false
    }

    private func queue(_ index: UInt32) throws {
        var buffer = v4l2_buffer()
        buffer.index = index
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        try device.control(dc_vidioc_qbuf(), "VIDIOC_QBUF", &buffer)
    }

    /// The size raw pictures are converted to; nil when the camera sends compressed ones.
    public var convertedSize: (width: Int, height: Int)? { converter.map { ($0.targetWidth, $0.targetHeight) } }

    /// Waits up to `timeoutMilliseconds` for the next picture of a raw format and converts
    /// it into `target` (of `convertedSize`, rows padded to
    /// `RawPictureConverter.strideAlignment`); nil on timeout. A camera that disappears
    /// throws an error whose `isDisconnect` is true.
    public func next(timeoutMilliseconds: Int32, into target: inout YUV420Image) throws -> CameraPicture? {
        guard let converter else { return try next(timeoutMilliseconds: timeoutMilliseconds) }
        return try dequeue(timeoutMilliseconds: timeoutMilliseconds) { bytes in
            try converter.convert(bytes, bytesPerLine: format.bytesPerLine, into: &target)
            return .converted
        }
    }

    /// Waits for the next MJPEG picture or H.264 access unit, as the camera sent it.
    public func next(timeoutMilliseconds: Int32) throws -> CameraPicture? {
        precondition(converter == nil, "a raw format is converted into a picture: next(timeoutMilliseconds:into:)")
        return try dequeue(timeoutMilliseconds: timeoutMilliseconds) { .compressed(Array($0)) }
    }

    /// Waits for the next picture and lets it go unread: its stamp and sequence are all a
    /// start measurement needs.
    public func skipNext(timeoutMilliseconds: Int32) throws -> CameraPicture? {
        try dequeue(timeoutMilliseconds: timeoutMilliseconds) { _ in .compressed([]) }
    }

    /// Dequeues one buffer, hands its bytes to `read` and queues it again.
    private func dequeue(timeoutMilliseconds: Int32,
                         _ read: (UnsafeRawBufferPointer) throws -> CameraPicture.Payload) throws -> CameraPicture? {
        var descriptor = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, timeoutMilliseconds)
        if ready < 0 {
            if errno == EINTR { return nil }
            throw V4L2Error(code: errno, call: "poll", device: path)
        }
        if ready == 0 { return nil }
        if descriptor.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 && descriptor.revents & Int16(POLLIN) == 0 {
            throw V4L2Error(code: ENODEV, call: "poll", device: path, detail: "the device reported an error")
        }
        var buffer = v4l2_buffer()
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        let result = dc_v4l2_ioctl(device.fd, dc_vidioc_dqbuf(), &buffer)
        if result < 0 {
            if errno == EAGAIN { return nil }
            throw V4L2Error(code: errno, call: "VIDIOC_DQBUF", device: path)
        }
        defer { try? queue(buffer.index) }
        let dropped: Int
        if let last = lastSequence, buffer.sequence > last {
            dropped = Int(buffer.sequence - last - 1)
        } else {
            // Drivers may repeat the first sequence numbers at stream start.
            dropped = 0
        }
        lastSequence = buffer.sequence
        let stamp = Int64(buffer.timestamp.tv_sec) * 1_000_000_000 + Int64(buffer.timestamp.tv_usec) * 1_000
        let monotonic = buffer.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
        let instant = monotonic && stamp > 0 ? stamp : Self.monotonicNow()
        let bytes = UnsafeRawBufferPointer(rebasing: buffers[Int(buffer.index)].prefix(Int(buffer.bytesused)))
        if buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 {
            return CameraPicture(payload: .corrupt, monotonicNanoseconds: instant, sequence: buffer.sequence,
                                 droppedBefore: dropped)
        }
        return CameraPicture(payload: try read(bytes), monotonicNanoseconds: instant, sequence: buffer.sequence, droppedBefore: dropped)
    }

    static func monotonicNow() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
