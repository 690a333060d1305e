/// In-place iterative radix-2 complex FFT; the core has no DSP library to lean on.
struct RadixTwoFFT: Sendable {
    let size: Int
    private let cosines: [Double]
    private let sines: [Double]

    init(size: Int) {
        precondition(size > 0 && size & (size - 1) == 0, "FFT size must be a power of two")
        self.size = size
        // From the exact fraction k/size rather than a rotation recurrence, whose rounding
        // would build up over a large transform; only the first quarter turn is evaluated,
        // the rest follows by symmetry, since a debug build spends most of a transform here.
        let quarter = size / 4
        let quadrant = (0...quarter).map { Sinusoid.sin(turns: Double($0) / Double(size)) }
        var cosines = [Double](repeating: 1, count: max(1, size / 2))
        var sines = [Double](repeating: 0, count: max(1, size / 2))
        if size >= 4 {
            for k in 0..<(size / 2) {
                if k <= quarter {
                    sines[k] = quadrant[k]
                    cosines[k] = quadrant[quarter - k]
                } else {
                    sines[k] = quadrant[size / 2 - k]
                    cosines[k] = -quadrant[k - quarter]
                }
            }
        }
        self.cosines = cosines
        self.sines = sines
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
