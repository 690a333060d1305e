/// What the agent needs to know about an H.264 access unit it passes through without
/// re-encoding: is it a keyframe, and which parameter sets does it carry.
public enum H264Bitstream {
    /// An IDR slice (NAL type 5) makes the access unit decodable on its own.
    public static func isKeyframe(_ accessUnit: [UInt8]) -> Bool {
        AnnexB.nalTypes(accessUnit, codecName: "h264").contains(5)
    }

    /// The SPS and PPS NAL units of the access unit, with their start codes, in order:
    /// the stream's extradata for muxers.
    public static func parameterSets(_ accessUnit: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
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
}
