import DualCamCore
@testable import DualCamMedia
import Testing

/// Which format capture asks a camera for, from what `cameras` would list. vivid offers
/// only raw formats, so a typical UVC webcam's list is written out here.
struct FormatChoiceTests {
    static func format(_ fourcc: FourCC, compressed: Bool = false, emulated: Bool = false,
                       _ sizes: [(Int, Int, [Int64])]) -> CameraFormat {
        CameraFormat(fourcc: fourcc, name: "\(fourcc)", compressed: compressed, emulated: emulated,
                     sizes: sizes.map { CameraFrameSize(width: $0.0, height: $0.1, rates: $0.2.map { FrameRate($0) }) })
    }

    /// A webcam: YUYV full rate only at small sizes (USB 2 bandwidth), MJPEG and H.264
    /// at 1080p30, and libv4l2's emulated YU12 at every size.
    static let webcam = [
        format(.yuyv, [(640, 480, [30]), (1280, 720, [10]), (1920, 1080, [5])]),
        format(.mjpeg, compressed: true, [(640, 480, [30]), (1280, 720, [30]), (1920, 1080, [30])]),
        format(.h264, compressed: true, [(1280, 720, [30]), (1920, 1080, [30])]),
        format(.yu12, emulated: true, [(640, 480, [30]), (1280, 720, [30]), (1920, 1080, [30])]),
    ]

    static func pick(_ formats: [CameraFormat], _ width: Int, _ height: Int, _ fps: Int64 = 30,
                     passThrough: Bool = true) throws -> FourCC {
        try FormatChoice.pick(from: formats, width: width, height: height, rate: FrameRate(fps),
                              allowPassThrough: passThrough, device: "/dev/video0")
    }

    @Test func highResolutionTakesH264ThenMJPEG() throws {
        #expect(try Self.pick(Self.webcam, 1920, 1080) == .h264)
        #expect(try Self.pick(Self.webcam, 1920, 1080, passThrough: false) == .mjpeg)
        // YUYV lists 1280x720 but only at 10 fps: not at the rate asked for.
        #expect(try Self.pick(Self.webcam, 1280, 720, passThrough: false) == .mjpeg)
    }

    @Test func smallPicturesTakeARawFormatAndNeverAnEmulatedOne() throws {
        #expect(try Self.pick(Self.webcam, 640, 480) == .yuyv)
        let onlyEmulatedPlanar = [Self.format(.yu12, emulated: true, [(640, 480, [30])]),
                                  Self.format(.nv12, [(640, 480, [30])])]
        #expect(try Self.pick(onlyEmulatedPlanar, 640, 480) == .nv12)
    }

    @Test func planarFourTwoZeroIsPreferredAmongRawFormats() throws {
        let raw = [Self.format(.yuyv, [(640, 360, [30])]), Self.format(.nv12, [(640, 360, [30])]),
                   Self.format(.yu12, [(640, 360, [30])])]
        #expect(try Self.pick(raw, 640, 360) == .yu12)
    }

    @Test func withoutTheExactSizeTheFirstReadableFormatIsTaken() throws {
        // Nothing at 1920x1080: S_FMT settles the size and the pictures are scaled.
        let small = [Self.format(.yuyv, [(640, 480, [30])])]
        #expect(try Self.pick(small, 1920, 1080) == .yuyv)
    }

    @Test func aCameraWithNothingReadableIsRefusedWithWhatItOffers() {
        let odd = [Self.format(FourCC("BA81")!, [(640, 480, [30])])]
        #expect(throws: V4L2Error.self) { try Self.pick(odd, 640, 480) }
        do {
            _ = try Self.pick(odd, 640, 480)
        } catch {
            #expect("\(error)".contains("the camera offers BA81"), "\(error)")
        }
    }

    /// A Raspberry Pi with a CSI sensor, its ISP and a USB webcam: the webcam is the
    /// camera an agent records when given no --source.
    @Test func theDefaultCameraIsTheFirstReadableOneThatIsNotAPipelineStage() {
        func camera(_ path: String, driver: String, _ formats: [CameraFormat]) -> CameraInfo {
            CameraInfo(path: path, card: driver, driver: driver, bus: "platform", formats: formats)
        }
        let bayer = camera("/dev/video0", driver: "unicam", [Self.format(FourCC("pRAA")!, [(1536, 864, [30])])])
        let isp = camera("/dev/video14", driver: "bcm2835-isp", [Self.format(.yu12, [(1920, 1080, [30])])])
        let emulatedOnly = camera("/dev/video16", driver: "odd", [Self.format(.yu12, emulated: true, [(640, 480, [30])])])
        let webcam = camera("/dev/video20", driver: "uvcvideo", Self.webcam)
        #expect(V4L2Catalog.firstUsableCamera(among: [bayer, isp, emulatedOnly, webcam])?.path == "/dev/video20")
        #expect(V4L2Catalog.firstUsableCamera(among: [bayer, isp, emulatedOnly]) == nil)
        #expect(V4L2Catalog.firstUsableCamera(among: []) == nil)
    }
}
