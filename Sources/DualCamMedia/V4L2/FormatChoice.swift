import DualCamCore

/// Which pixel format to ask a camera for. Compressed formats win at high resolution,
/// where USB webcams offer full rate only compressed (and H.264 spares the encoder);
/// otherwise raw formats, planar 4:2:0 first. Only formats the camera itself produces
/// are considered: libv4l2's emulated ones cost CPU a Pi does not have.
enum FormatChoice {
    static func pick(from formats: [CameraFormat], width: Int, height: Int, rate: FrameRate,
                     allowPassThrough: Bool, device: String) throws -> FourCC {
        let native = formats.filter { !$0.emulated }
        func offers(_ fourcc: FourCC) -> Bool {
            guard let format = native.first(where: { $0.fourcc == fourcc }) else { return false }
            // Cameras that list no sizes accept whatever S_FMT negotiates.
            if format.sizes.isEmpty { return true }
            return format.sizes.contains { size in
                size.width == width && size.height == height
                    && (size.rates.isEmpty || size.rates.contains { $0.framesPerSecond >= rate.framesPerSecond - 0.01 })
            }
        }
        let highResolution = width * height >= 1280 * 720
        var order: [FourCC] = []
        if highResolution {
            if allowPassThrough { order.append(.h264) }
            order += [.mjpeg, .jpeg]
        }
        order += RawPictureConverter.supported
        if !highResolution {
            order += [.mjpeg, .jpeg]
            if allowPassThrough { order.append(.h264) }
        }
        if let exact = order.first(where: offers) { return exact }
        // Nothing offers the exact size and rate: the first readable format, and S_FMT
        // settles the size (raw pictures are then scaled).
        if let any = order.first(where: { f in native.contains { $0.fourcc == f } }) { return any }
        throw V4L2Error(code: 0, call: "format negotiation", device: device,
                        detail: "the camera offers \(formats.map(\.fourcc.description).joined(separator: ", ")); DualCam reads "
                            + (order.map(\.description)).joined(separator: ", "))
    }
}
