import Foundation
import Testing

@testable import DualCamCore

/// The core's own e^x, ln x and x^y (it imports no maths library) against Glibc's, through
/// Foundation, which the tests may import.
struct ExponentialTests {
    static func close(_ a: Double, _ b: Double, ulps: Double = 4) -> Bool {
        a == b || abs(a - b) <= ulps * max(abs(a), abs(b)).ulp
    }

    @Test func logMatchesTheCLibrary() {
        for x in [1e-300, 1e-12, 0.001, 0.25, 0.7071, 1, 1.0000001, 1.4142, 1.5, 2, 2.718281828459045, 10, 1234.5, 1e12, 1e300] {
            #expect(Self.close(Exponential.log(x), Foundation.log(x)), "log(\(x)) = \(Exponential.log(x)), C: \(Foundation.log(x))")
        }
        #expect(Exponential.log(1) == 0)
        #expect(Exponential.log(0) == -.infinity)
        #expect(Exponential.log(-1).isNaN)
    }

    @Test func expMatchesTheCLibrary() {
        for x in [-700.0, -20, -1.3862943611198906, -0.5, -1e-9, 0, 1e-9, 0.34657, 0.5, 1, 1.3862943611198906, 10, 100, 709] {
            #expect(Self.close(Exponential.exp(x), Foundation.exp(x)), "exp(\(x)) = \(Exponential.exp(x)), C: \(Foundation.exp(x))")
        }
        #expect(Exponential.exp(0) == 1)
        #expect(Exponential.exp(800) == .infinity)
        #expect(Exponential.exp(-800) == 0)
    }

    /// What the callers ask: a zoom's ratio (¼ to 4) to a power in 0…1, and 2 to a sixth
    /// of a CRF difference.
    @Test func powMatchesTheCLibraryWhereTheCoreUsesIt() {
        for base in [0.25, 0.5, 1, 1.5, 2, 4] {
            for p in stride(from: 0.0, through: 1, by: 0.0625) {
                #expect(Self.close(Exponential.pow(base, p), Foundation.pow(base, p), ulps: 8), "\(base)^\(p)")
            }
        }
        for crf in 0...51 {
            let y = (23 - Double(crf)) / 6
            #expect(Self.close(Exponential.pow(2, y), Foundation.pow(2, y), ulps: 8), "2^\(y)")
        }
        #expect(Self.close(Exponential.pow(2, 3), 8))
        #expect(Exponential.pow(0, 2) == 0 && Exponential.pow(5, 0) == 1)
    }
}
