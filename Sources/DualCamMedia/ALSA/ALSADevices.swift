import CAlsa
import Glibc

/// A capture PCM as ALSA's configuration names it ("hw:CARD=Device,DEV=0", "default", ...).
public struct ALSADevice: Sendable, Equatable {
    public var name: String
    public var description: String
}

public enum ALSADevices {
    /// Every PCM that can capture, from ALSA's device hints: sound cards and the PCMs the
    /// configuration defines (asoundrc) with a hint.
    public static func capture() -> [ALSADevice] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) >= 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var devices: [ALSADevice] = []
        var cursor = hints
        while let hint = cursor.pointee {
            cursor += 1
            let name = take(snd_device_name_get_hint(hint, "NAME"))
            let description = take(snd_device_name_get_hint(hint, "DESC"))
            let direction = take(snd_device_name_get_hint(hint, "IOID"))
            // No IOID means both directions.
            guard let name, direction == nil || direction == "Input" else { continue }
            devices.append(ALSADevice(name: name, description: (description ?? "").replacingNewlines()))
        }
        return devices
    }

    /// The hint strings are malloc'd for the caller.
    private static func take(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}

private extension String {
    func replacingNewlines() -> String { split(separator: "\n").joined(separator: ", ") }
}
