import Foundation

/// What DualCam needs to know about an H.264 access unit it did not encode (passed through,
/// or a preview shown by a browser): is it a keyframe, which parameter sets, which codec.
public enum H264Bitstream {
    /// An IDR slice (NAL type 5) makes the access unit decodable on its own.
    public static func isKeyframe(_ accessUnit: [UInt8]) -> Bool {
        AnnexB.nalTypes(accessUnit, codecName: "h264").contains(5)
    }

    /// The SPS and PPS NAL units of the access unit, with their start codes, in order:
    /// the stream's extradata for muxers.
    public static func parameterSets(_ accessUnit: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        let starts = nalStarts(accessUnit)
        for (n, start) in starts.enumerated() where start < accessUnit.count {
            let type = accessUnit[start] & 0x1F
            guard type == 7 || type == 8 else { continue }
            var end = n + 1 < starts.count ? starts[n + 1] - 3 : accessUnit.count
            // A 4-byte start code leaves one zero byte that belongs to the next one.
            while end > start && accessUnit[end - 1] == 0 { end -= 1 }
            result += [0, 0, 0, 1] + accessUnit[start..<end]
        }
        return result
    }

    /// The RFC 6381 codec string ("avc1.PPCCLL": profile, constraint flags, level) of the
    /// access unit's SPS, as browsers' WebCodecs decoders want it; nil without an SPS.
    public static func codecString(_ accessUnit: [UInt8]) -> String? {
        for start in nalStarts(accessUnit) where accessUnit[start] & 0x1F == 7 && start + 3 < accessUnit.count {
            return String(format: "avc1.%02X%02X%02X", accessUnit[start + 1], accessUnit[start + 2], accessUnit[start + 3])
        }
        return nil
    }

    /// Where each NAL unit's header byte is: just after each 3-byte start code (a 4-byte
    /// one is a zero and a 3-byte one).
    private static func nalStarts(_ accessUnit: [UInt8]) -> [Int] {
        var starts: [Int] = []
        var index = 0
        while index + 3 <= accessUnit.count {
            if accessUnit[index] == 0 && accessUnit[index + 1] == 0 && accessUnit[index + 2] == 1 {
                starts.append(index + 3)
                index += 3
            } else {
                index += 1
            }
        }
        return starts
    }
}
