import CV4L2
import DualCamCore
import Foundation

/// A V4L2 pixel format code, shown as its four characters ("YUYV", "MJPG").
public struct FourCC: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 4 else { return nil }
        rawValue = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
    }

    public var description: String {
        let bytes = (0..<4).map { UInt8((rawValue >> (8 * $0)) & 0xFF) }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    public static let yuyv = FourCC("YUYV")!
    public static let uyvy = FourCC("UYVY")!
    public static let nv12 = FourCC("NV12")!
    public static let nv21 = FourCC("NV21")!
    public static let yu12 = FourCC("YU12")!
    public static let yv12 = FourCC("YV12")!
    public static let mjpeg = FourCC("MJPG")!
    public static let jpeg = FourCC("JPEG")!
    public static let h264 = FourCC("H264")!
}

/// One size a format offers, with the frame rates at that size.
public struct CameraFrameSize: Sendable, Hashable {
    public var width: Int
    public var height: Int
    /// Discrete rates, highest first; for stepwise or continuous intervals, the fastest
    /// and slowest ends.
    public var rates: [FrameRate]
}

public struct CameraFormat: Sendable, Hashable {
    public var fourcc: FourCC
    public var name: String
    public var compressed: Bool
    /// Produced by libv4l2's conversion, not by the camera itself: costs CPU.
    public var emulated: Bool
    public var sizes: [CameraFrameSize]
}

public struct CameraInfo: Sendable {
    public var path: String
    public var card: String
    public var driver: String
    public var bus: String
    public var formats: [CameraFormat]
}

/// What cameras this machine has and what each offers.
public enum V4L2Catalog {
    /// /dev/video* nodes that can capture video (a webcam often adds a metadata node,
    /// which is left out).
    public static func cameras() -> (found: [CameraInfo], failures: [V4L2Error]) {
        let nodes = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? [])
            .filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
            .sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
        var found: [CameraInfo] = []
        var failures: [V4L2Error] = []
        for node in nodes {
            do {
                if let info = try describe("/dev/" + node) { found.append(info) }
            } catch let error as V4L2Error {
                failures.append(error)
            } catch {
                failures.append(V4L2Error(code: 0, call: "describe", device: "/dev/" + node, detail: "\(error)"))
            }
        }
        return (found, failures)
    }

    /// Drivers whose capture nodes are stages of a processing pipeline (image signal
    /// processors), not cameras: they list YUV formats but deliver nothing on their own.
    static let pipelineDrivers: Set<String> = ["bcm2835-isp", "pispbe", "rkisp1", "mali-c55"]

    /// The camera a node with no `--source` records from: the first capture node that
    /// is not a pipeline stage and offers, natively, a format capture reads (a Pi's CSI
    /// sensor on unicam offers only Bayer, which needs libcamera: pipe it in instead).
    public static func firstUsableCamera(among cameras: [CameraInfo] = cameras().found) -> CameraInfo? {
        let readable = Set(RawPictureConverter.supported + [.mjpeg, .jpeg, .h264])
        return cameras.first { camera in
            !pipelineDrivers.contains(camera.driver)
                && camera.formats.contains { !$0.emulated && readable.contains($0.fourcc) }
        }
    }

    /// The device's formats, sizes and rates, or nil when it is not a video capture node.
    public static func describe(_ path: String) throws -> CameraInfo? {
        let device = try V4L2Device(path: path)
        let cap = try device.capabilities()
        let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 else { return nil }
        return CameraInfo(path: path, card: CText.string(cap.card), driver: CText.string(cap.driver),
                          bus: CText.string(cap.bus_info), formats: try formats(of: device))
    }

    static func formats(of device: V4L2Device) throws -> [CameraFormat] {
        var result: [CameraFormat] = []
        var index: UInt32 = 0
        while true {
            var desc = v4l2_fmtdesc()
            desc.index = index
            desc.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            guard try device.enumerate(dc_vidioc_enum_fmt(), "VIDIOC_ENUM_FMT", &desc) else { break }
            let fourcc = FourCC(rawValue: desc.pixelformat)
            result.append(CameraFormat(
                fourcc: fourcc, name: CText.string(desc.description),
                compressed: desc.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0,
                emulated: desc.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0,
                sizes: try sizes(of: device, format: fourcc)))
            index += 1
        }
        return result
    }

    static func sizes(of device: V4L2Device, format: FourCC) throws -> [CameraFrameSize] {
        var result: [CameraFrameSize] = []
        var index: UInt32 = 0
        while true {
            var size = v4l2_frmsizeenum()
            size.index = index
            size.pixel_format = format.rawValue
            guard try device.enumerate(dc_vidioc_enum_framesizes(), "VIDIOC_ENUM_FRAMESIZES", &size) else { break }
            if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                let w = Int(size.discrete.width), h = Int(size.discrete.height)
                result.append(CameraFrameSize(width: w, height: h, rates: try rates(of: device, format: format, width: w, height: h)))
                index += 1
            } else {
                // Stepwise sizes are listed by their ends; any size between is negotiable.
                let s = size.stepwise
                for (w, h) in [(Int(s.max_width), Int(s.max_height)), (Int(s.min_width), Int(s.min_height))] {
                    result.append(CameraFrameSize(width: w, height: h, rates: try rates(of: device, format: format, width: w, height: h)))
                }
                break
            }
        }
        return result
    }

    static func rates(of device: V4L2Device, format: FourCC, width: Int, height: Int) throws -> [FrameRate] {
        var result: [FrameRate] = []
        var index: UInt32 = 0
        while true {
            var interval = v4l2_frmivalenum()
            interval.index = index
            interval.pixel_format = format.rawValue
            interval.width = UInt32(width)
            interval.height = UInt32(height)
            guard try device.enumerate(dc_vidioc_enum_frameintervals(), "VIDIOC_ENUM_FRAMEINTERVALS", &interval) else { break }
            if interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                // An interval of n/d seconds is a rate of d/n frames per second.
                let d = interval.discrete
                if d.numerator > 0, d.denominator > 0 { result.append(FrameRate(Int64(d.denominator), Int64(d.numerator))) }
                index += 1
            } else {
                let s = interval.stepwise
                if s.min.numerator > 0 { result.append(FrameRate(Int64(s.min.denominator), Int64(s.min.numerator))) }
                if s.max.numerator > 0 { result.append(FrameRate(Int64(s.max.denominator), Int64(s.max.numerator))) }
                break
            }
        }
        return result.sorted { $0.framesPerSecond > $1.framesPerSecond }
    }
}
