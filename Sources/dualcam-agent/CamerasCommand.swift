import ArgumentParser
import DualCamMedia

struct Cameras: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List V4L2 cameras with their formats, sizes and frame rates.")

    @Option(help: "Describe this node only.") var device: String?

    func run() throws {
        var cameras: [CameraInfo] = []
        var failures: [V4L2Error] = []
        if let device {
            guard let info = try V4L2Catalog.describe(device) else {
                throw ValidationError("\(device) is not a video capture node")
            }
            cameras = [info]
        } else {
            (cameras, failures) = V4L2Catalog.cameras()
        }
        for failure in failures { print("! \(failure)") }
        if cameras.isEmpty {
            print("no V4L2 camera found (no /dev/video* capture node). A Pi camera module on libcamera: "
                + "pipe `rpicam-vid` into `dualcam-agent run --source stdin`, see `man dualcam-agent` or docs/RASPBERRY-PI.md.")
            return
        }
        let chosen = V4L2Catalog.firstUsableCamera(among: cameras)?.path
        for camera in cameras {
            print("\(camera.path): \(camera.card) (driver \(camera.driver), \(camera.bus))"
                + (camera.path == chosen ? "  [recorded when no --source is given]" : ""))
            for format in camera.formats {
                let flags = [format.compressed ? "compressed" : nil, format.emulated ? "emulated by libv4l2" : nil].compactMap { $0 }
                print("  \(format.fourcc)  \(format.name)" + (flags.isEmpty ? "" : "  [\(flags.joined(separator: ", "))]"))
                for size in format.sizes {
                    let rates = size.rates.map(\.decimalText)
                    print("    \(size.width)x\(size.height)" + (rates.isEmpty ? "" : "  @ \(rates.joined(separator: ", ")) fps"))
                }
            }
        }
    }
}
