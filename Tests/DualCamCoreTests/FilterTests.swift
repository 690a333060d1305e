import Testing
import DualCamCore

@Suite struct FilterTests {
    /// Odd sizes and padded rows, so the pair tables' tail and the strides are exercised.
    static let picture = PictureFixtures.pattern(width: 63, height: 47, seed: 4, lumaPadding: 3, chromaPadding: 2)

    static let goldens: [String: UInt64] = [
        "none@100": 0x9a7faea41d27a164,
        "none@50": 0x9a7faea41d27a164,
        "vivid@100": 0x232437105a7611d4,
        "vivid@50": 0x2593884f0fd2cd3f,
        "dramatic@100": 0xefa5324818378c19,
        "dramatic@50": 0x39461f8b16416330,
        "cool@100": 0x9663cc4e95dc7dc7,
        "cool@50": 0x63810e8775aacba0,
        "warm@100": 0x27042185adc168bf,
        "warm@50": 0x93fc57fb1d81e459,
        "bw@100": 0x6527ea2877432cab,
        "bw@50": 0x0e9dc637e8e4977e,
        "sepia@100": 0x5e1534ef55199c7b,
        "sepia@50": 0x5d2dad45eeed47ca,
        "cinematic@100": 0x79a2e9278c3dcb27,
        "cinematic@50": 0xec78318ad63324c1,
    ]

    static func filtered(_ kind: FilterKind, _ intensity: Int = 100, _ image: YUV420Image = picture) -> YUV420Image {
        var copy = image
        Filter(kind: kind, intensity: intensity).apply(to: &copy)
        return copy
    }

    /// Pixels of a plane, padding excluded.
    static func pixels(_ plane: [UInt8], stride: Int, width: Int, height: Int) -> [UInt8] {
        (0..<height).flatMap { row in plane[(row * stride)..<(row * stride + width)] }
    }

    static func lumaPixels(_ image: YUV420Image) -> [UInt8] {
        pixels(image.y, stride: image.lumaStride, width: image.width, height: image.height)
    }

    static func chromaPixels(_ image: YUV420Image) -> (cb: [UInt8], cr: [UInt8]) {
        (pixels(image.cb, stride: image.chromaStride, width: image.chromaWidth, height: image.chromaHeight),
         pixels(image.cr, stride: image.chromaStride, width: image.chromaWidth, height: image.chromaHeight))
    }

    static func mean(_ values: [UInt8]) -> Double { Double(values.reduce(0) { $0 + Int($1) }) / Double(values.count) }

    @Test func commandLineNames() throws {
        #expect(FilterKind.allCases.map(\.rawValue) == ["none", "vivid", "dramatic", "cool", "warm", "bw", "sepia", "cinematic"])
        #expect(try FilterKind.parse("BW") == .blackAndWhite)
        #expect(try FilterKind.parse("black-and-white") == .blackAndWhite)
        #expect(throws: FilterError.self) { try FilterKind.parse("lomo") }
    }

    @Test(arguments: FilterKind.allCases)
    func goldenChecksum(kind: FilterKind) {
        for intensity in [100, 50] {
            let name = "\(kind.rawValue)@\(intensity)"
            let sum = PictureFixtures.checksum(Self.filtered(kind, intensity))
            #expect(sum == Self.goldens[name], "\(name): \(PictureFixtures.hex(sum))")
        }
    }

    @Test(arguments: FilterKind.allCases)
    func paddingIsUntouchedAndEqualInputsGiveEqualOutputs(kind: FilterKind) {
        let out = Self.filtered(kind)
        for row in 0..<out.height {
            for col in out.width..<out.lumaStride { #expect(out.y[row * out.lumaStride + col] == 0xEE) }
        }
        for row in 0..<out.chromaHeight {
            for col in out.chromaWidth..<out.chromaStride {
                #expect(out.cb[row * out.chromaStride + col] == 0xEE && out.cr[row * out.chromaStride + col] == 0xEE)
            }
        }
        // Luma is a pure function of the input value, the odd last column included.
        var seen: [UInt8: UInt8] = [:]
        for (input, output) in zip(Self.lumaPixels(Self.picture), Self.lumaPixels(out)) {
            #expect(seen[input, default: output] == output)
            seen[input] = output
        }
    }

    @Test func noneAndZeroIntensityAreIdentity() {
        #expect(Self.filtered(.none) == Self.picture)
        #expect(Filter(kind: .none).isIdentity)
        for kind in FilterKind.allCases {
            #expect(Self.filtered(kind, 0) == Self.picture)
            #expect(Filter(kind: kind, intensity: -5).intensity == 0)
        }
    }

    @Test func intensityInterpolates() {
        let source = Self.lumaPixels(Self.picture), half = Self.lumaPixels(Self.filtered(.dramatic, 50))
        let full = Self.lumaPixels(Self.filtered(.dramatic, 100))
        for i in source.indices {
            let lo = min(source[i], full[i]), hi = max(source[i], full[i])
            #expect(half[i] >= lo && half[i] <= hi)
            #expect(abs(2 * Int(half[i]) - Int(source[i]) - Int(full[i])) <= 2)
        }
    }

    @Test func monochromeLooks() {
        let bw = Self.chromaPixels(Self.filtered(.blackAndWhite))
        #expect(bw.cb.allSatisfy { $0 == 128 } && bw.cr.allSatisfy { $0 == 128 })
        let sepia = Self.chromaPixels(Self.filtered(.sepia))
        #expect(Set(sepia.cb) == [113] && Set(sepia.cr) == [141], "one brown tone")
        let y = Self.lumaPixels(Self.filtered(.sepia))
        #expect(y.min()! > 16 && y.max()! < 235, "faded print: lifted blacks, lowered whites")
    }

    @Test func colourCasts() {
        let original = Self.chromaPixels(Self.picture)
        let cool = Self.chromaPixels(Self.filtered(.cool)), warm = Self.chromaPixels(Self.filtered(.warm))
        #expect(Self.mean(cool.cb) > Self.mean(original.cb) && Self.mean(cool.cr) < Self.mean(original.cr))
        #expect(Self.mean(warm.cb) < Self.mean(original.cb) && Self.mean(warm.cr) > Self.mean(original.cr))
        #expect(Self.lumaPixels(Self.filtered(.cool)) == Self.lumaPixels(Self.picture), "tones unchanged")
    }

    @Test func contrastAndSaturation() {
        // A ramp from black to white with a saturated red chroma.
        var ramp = PictureFixtures.flat(width: 220, height: 2, y: 16, cb: 102, cr: 240)
        for row in 0..<2 {
            for col in 0..<220 { ramp.y[row * 220 + col] = UInt8(16 + col) }
        }
        let vivid = Self.filtered(.vivid, 100, ramp), dramatic = Self.filtered(.dramatic, 100, ramp)
        #expect(vivid.luma(40, 0) < ramp.luma(40, 0) && vivid.luma(180, 0) > ramp.luma(180, 0))
        #expect(dramatic.luma(40, 0) < vivid.luma(40, 0) && dramatic.luma(180, 0) > vivid.luma(180, 0))
        #expect(vivid.luma(0, 0) == 16 && vivid.luma(219, 0) == 235)
        #expect(vivid.cr[0] == 240 && vivid.cb[0] < 102, "more saturated, clipped to the legal range")
        #expect(dramatic.cb[0] > 102 && dramatic.cr[0] < 240, "less saturated")
        // Cinematic turns red toward orange: Cb falls, and lifts the blacks.
        let cinematic = Self.filtered(.cinematic, 100, ramp)
        #expect(cinematic.cb[0] < 102)
        #expect(cinematic.luma(0, 0) > 16 && cinematic.luma(219, 0) < 235)
        for x in 1..<220 { #expect(cinematic.luma(x, 0) >= cinematic.luma(x - 1, 0), "tone curve is monotonic") }
    }
}

/// A filter as people and files name it: "vivid 80%" (the manifest), "bw 60" (a pipe).
@Suite struct FilterSettingTests {
    @Test func theWrittenFormReadsBack() throws {
        for setting in [FilterSetting(kind: .vivid, intensity: 80), FilterSetting(kind: .none), FilterSetting(kind: .blackAndWhite, intensity: 0)] {
            #expect(try FilterSetting(parsing: setting.description) == setting)
        }
        #expect(try FilterSetting(parsing: "bw 60") == FilterSetting(kind: .blackAndWhite, intensity: 60))
        #expect(try FilterSetting(parsing: "sepia") == FilterSetting(kind: .sepia, intensity: 100))
    }

    @Test(arguments: ["", "glow", "vivid 101", "vivid -1", "vivid lots", "vivid 80 extra"])
    func wrongWordsAreRefusedNotClamped(text: String) {
        #expect(throws: FilterError.self) { try FilterSetting(parsing: text) }
    }
}
