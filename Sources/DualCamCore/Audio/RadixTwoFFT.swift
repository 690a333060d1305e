/// In-place iterative radix-2 complex FFT; the core has no DSP library to lean on.
struct RadixTwoFFT: Sendable {
    let size: Int
    private let cosines: [Double]
    private let sines: [Double]

    init(size: Int) {
        precondition(size > 0 && size & (size - 1) == 0, "FFT size must be a power of two")
        self.size = size
        // A table from the exact fraction k/size rather than a rotation recurrence, whose
        // rounding would build up over a large transform.
        cosines = (0..<max(1, size / 2)).map { Sinusoid.cos(turns: Double($0) / Double(size)) }
        sines = (0..<max(1, size / 2)).map { Sinusoid.sin(turns: Double($0) / Double(size)) }
    }

    static func size(atLeast n: Int) -> Int {
        var size = 1
        while size < n { size <<= 1 }
        return size
    }

    /// Forward is `X[k] = Σ x[n]·e^(−2πikn/N)`; inverse uses `e^(+…)` and does not divide by N.
    func transform(real: inout [Double], imaginary: inout [Double], inverse: Bool) {
        precondition(real.count == size && imaginary.count == size)
        let n = size
        let sign = inverse ? 1.0 : -1.0
        cosines.withUnsafeBufferPointer { cosTable in
            sines.withUnsafeBufferPointer { sinTable in
                real.withUnsafeMutableBufferPointer { re in
                    imaginary.withUnsafeMutableBufferPointer { im in
                        var j = 0
                        for i in 1..<max(1, n) {
                            var bit = n >> 1
                            while j & bit != 0 {
                                j ^= bit
                                bit >>= 1
                            }
                            j |= bit
                            if i < j {
                                re.swapAt(i, j)
                                im.swapAt(i, j)
                            }
                        }
                        var length = 2
                        while length <= n {
                            let half = length / 2, step = n / length
                            var start = 0
                            while start < n {
                                for k in 0..<half {
                                    let wr = cosTable[k * step], wi = sign * sinTable[k * step]
                                    let a = start + k, b = a + half
                                    let tr = re[b] * wr - im[b] * wi
                                    let ti = re[b] * wi + im[b] * wr
                                    re[b] = re[a] - tr
                                    im[b] = im[a] - ti
                                    re[a] += tr
                                    im[a] += ti
                                }
                                start += length
                            }
                            length <<= 1
                        }
                    }
                }
            }
        }
    }
}
