/// Arithmetic in GF(2^8) with QR's reducing polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D),
/// whose generator element is 2 (α).
enum QRGaloisField {
    /// α^i for i in 0..<510: doubled so a product's log sum needs no modulo.
    static let exponents: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 510)
        var value = 1
        for i in 0..<255 {
            table[i] = UInt8(value)
            table[i + 255] = UInt8(value)
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        return table
    }()

    /// log_α(v) for v in 1...255; entry 0 is unused because 0 has no logarithm.
    static let logarithms: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        for i in 0..<255 { table[Int(exponents[i])] = i }
        return table
    }()

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return exponents[logarithms[Int(a)] + logarithms[Int(b)]]
    }
}

enum QRReedSolomon {
    /// Coefficients of ∏_{i<degree} (x − α^i), highest power first (its leading 1 included).
    static func generator(degree: Int) -> [UInt8] {
        var poly: [UInt8] = [1]
        for i in 0..<degree {
            let root = QRGaloisField.exponents[i]
            // poly · x + poly · α^i; subtraction is XOR in characteristic 2.
            var next = poly + [0]
            for j in 0..<poly.count {
                next[j + 1] ^= QRGaloisField.multiply(poly[j], root)
            }
            poly = next
        }
        return poly
    }

    /// The remainder of data(x) · x^degree divided by the generator: the error
    /// correction codewords appended to one block.
    static func errorCorrection(for data: [UInt8], degree: Int) -> [UInt8] {
        let generator = generator(degree: degree)
        var work = data + [UInt8](repeating: 0, count: degree)
        for i in 0..<data.count {
            let factor = work[i]
            if factor == 0 { continue }
            for j in 0..<generator.count {
                work[i + j] ^= QRGaloisField.multiply(generator[j], factor)
            }
        }
        return Array(work[data.count...])
    }
}
