import DualCamTestSupport
import Testing
@testable import DualCamCore

@Suite struct AudioMathTests {
    @Test func sineAtExactAngles() {
        let cases: [(turns: Double, sine: Double)] = [
            (0, 0), (1.0 / 12, 0.5), (0.125, 0.5.squareRoot()), (0.25, 1), (5.0 / 12, 0.5),
            (0.5, 0), (0.75, -1), (11.0 / 12, -0.5), (-0.25, -1), (1000.25, 1), (-3.0 / 12 - 7, -1),
        ]
        for c in cases {
            #expect((Sinusoid.sin(turns: c.turns) - c.sine).magnitude < 1e-12, "\(c.turns)")
        }
        #expect((Sinusoid.cos(turns: 1.0 / 6) - 0.5).magnitude < 1e-15)
    }

    @Test func sineAndCosineAreConsistentEverywhere() {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<10_000 {
            let t = (rng.unit() - 0.5) * 8
            let s = Sinusoid.sin(turns: t), c = Sinusoid.cos(turns: t)
            #expect((s * s + c * c - 1).magnitude < 1e-14, "\(t)")
            // Double angle: sin 2x = 2 sin x cos x.
            #expect((Sinusoid.sin(turns: 2 * t) - 2 * s * c).magnitude < 1e-12)
        }
    }

    @Test func fftMatchesADirectTransformAndInverts() {
        var rng = SplitMix64(seed: 5)
        let n = 64
        let x = (0..<n).map { _ in rng.unit() - 0.5 }, y = (0..<n).map { _ in rng.unit() - 0.5 }
        var re = x, im = y
        let fft = RadixTwoFFT(size: n)
        fft.transform(real: &re, imaginary: &im, inverse: false)
        for k in 0..<n {
            var sr = 0.0, si = 0.0
            for j in 0..<n {
                let c = Sinusoid.cos(turns: Double(k * j) / Double(n)), s = Sinusoid.sin(turns: Double(k * j) / Double(n))
                sr += x[j] * c + y[j] * s
                si += y[j] * c - x[j] * s
            }
            #expect((re[k] - sr).magnitude < 1e-12 && (im[k] - si).magnitude < 1e-12, "bin \(k)")
        }
        fft.transform(real: &re, imaginary: &im, inverse: true)
        for j in 0..<n {
            #expect((re[j] / Double(n) - x[j]).magnitude < 1e-14 && (im[j] / Double(n) - y[j]).magnitude < 1e-14)
        }
        #expect(RadixTwoFFT.size(atLeast: 1) == 1 && RadixTwoFFT.size(atLeast: 1025) == 2048)
    }

    @Test(arguments: [1, 2, 5, 6])
    func decimatorIsATriangularFilter(factor: Int) {
        var rng = SplitMix64(seed: UInt64(factor))
        let x = (0..<1000).map { _ in Float(rng.unit() - 0.5) }
        let y = AntiAliasDecimator.decimate(x, factor: factor)
        #expect(y.count == (1000 - 2 * factor + 1) / factor + 1)
        for k in y.indices {
            var direct = 0.0
            for j in 0..<(2 * factor - 1) {
                direct += Double(factor - abs(j - (factor - 1))) * Double(x[k * factor + j])
            }
            #expect((y[k] - direct / Double(factor * factor)).magnitude < 1e-12, "output \(k)")
        }
    }
}
