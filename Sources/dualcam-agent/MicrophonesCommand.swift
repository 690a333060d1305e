import ArgumentParser
import DualCamMedia

struct Microphones: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List ALSA capture devices (microphones) for --microphone.")

    @Option(help: "Also open this device and report what it accepts (rate, channels, sample size).") var device: String?

    func run() throws {
        let devices = ALSADevices.capture()
        if devices.isEmpty {
            print("no ALSA capture device found (no sound card, or ALSA not configured). USB microphones appear once plugged in.")
        }
        for device in devices {
            print("\(device.name)" + (device.description.isEmpty ? "" : "  \(device.description)"))
        }
        if let device {
            for (rate, channels, bits) in [(48_000, 1, 16), (48_000, 2, 16), (48_000, 1, 24), (44_100, 1, 16)] {
                do {
                    let capture = try ALSACapture(device: device, sampleRate: rate, channels: channels, bits: bits)
                    print("  \(device): \(rate) Hz, \(channels) ch, \(bits)-bit: yes (\(capture.formatName), period \(capture.periodFrames))")
                } catch {
                    print("  \(device): \(rate) Hz, \(channels) ch, \(bits)-bit: no (\(error))")
                }
            }
        }
    }
}
