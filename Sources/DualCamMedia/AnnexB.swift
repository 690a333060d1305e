/// Just enough Annex B parsing to know whether an access unit carries its own parameter
/// sets; segments must decode on their own, so keyframes without them get the codec's
/// extradata prepended.
enum AnnexB {
    /// True when `data` starts with a 3- or 4-byte start code.
    static func isAnnexB(_ data: [UInt8]) -> Bool {
        (data.count >= 3 && data[0] == 0 && data[1] == 0 && data[2] == 1)
            || (data.count >= 4 && data[0] == 0 && data[1] == 0 && data[2] == 0 && data[3] == 1)
    }

    /// NAL unit types found in `data` for the given codec ("h264" or "hevc").
    static func nalTypes(_ data: [UInt8], codecName: String) -> [Int] {
        var types: [Int] = []
        var index = 0
        let count = data.count
        while index + 3 < count {
            if data[index] == 0 && data[index + 1] == 0 && data[index + 2] == 1 {
                let header = Int(data[index + 3])
                types.append(codecName == "hevc" ? (header >> 1) & 0x3F : header & 0x1F)
                index += 3
            } else {
                index += 1
            }
        }
        return types
    }

    /// Whether the access unit contains a sequence parameter set (SPS 7 in H.264, SPS 33 in H.265).
    static func hasParameterSets(_ data: [UInt8], codecName: String) -> Bool {
        let sps = codecName == "hevc" ? 33 : 7
        return nalTypes(data, codecName: codecName).contains(sps)
    }
}
