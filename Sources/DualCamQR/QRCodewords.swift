/// Turns the payload into the final codeword sequence: the byte-mode bit stream, its
/// padding, per-block error correction and the interleaving of the blocks.
enum QRCodewords {
    static func dataCodewords(_ bytes: [UInt8], version: Int, level: QRCode.ErrorCorrection) -> [UInt8] {
        let capacity = QRCapacity.dataCodewords(version: version, level: level)
        var bits = QRBitWriter()
        bits.append(0b0100, count: 4)  // byte mode indicator
        bits.append(bytes.count, count: QRCapacity.countBits(version: version))
        for byte in bytes { bits.append(Int(byte), count: 8) }
        // The terminator may be cut short when the data ends just before capacity.
        bits.append(0, count: min(4, capacity * 8 - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        // Alternating pad bytes, rather than zeros, avoid long uniform runs in the symbol.
        var pad: UInt8 = 0xEC
        while codewords.count < capacity {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// Interleaving spreads each block across the symbol, so a local smudge costs every
    /// block a few codewords instead of costing one block more than it can repair.
    static func withErrorCorrection(_ data: [UInt8], version: Int, level: QRCode.ErrorCorrection) -> [UInt8] {
        let blockCount = QRCapacity.blockCount(version: version, level: level)
        let ecLength = QRCapacity.ecCodewordsPerBlock(version: version, level: level)
        // When the data doesn't split evenly, the last blocks carry one codeword more.
        let shortLength = data.count / blockCount
        let longBlocks = data.count % blockCount
        let shortBlocks = blockCount - longBlocks

        var dataBlocks: [[UInt8]] = []
        var start = 0
        for index in 0..<blockCount {
            let length = shortLength + (index < shortBlocks ? 0 : 1)
            dataBlocks.append(Array(data[start..<start + length]))
            start += length
        }
        let ecBlocks = dataBlocks.map { QRReedSolomon.errorCorrection(for: $0, degree: ecLength) }

        var result: [UInt8] = []
        result.reserveCapacity(data.count + blockCount * ecLength)
        for column in 0..<(shortLength + (longBlocks > 0 ? 1 : 0)) {
            for block in dataBlocks where column < block.count {
                result.append(block[column])
            }
        }
        for column in 0..<ecLength {
            for block in ecBlocks {
                result.append(block[column])
            }
        }
        return result
    }
}

struct QRBitWriter {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    /// Appends the low `count` bits of `value`, most significant first.
    mutating func append(_ value: Int, count bitCount: Int) {
        for shift in stride(from: bitCount - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> shift) & 1 == 1 {
                bytes[bytes.count - 1] |= 0x80 >> UInt8(count % 8)
            }
            count += 1
        }
    }
}
