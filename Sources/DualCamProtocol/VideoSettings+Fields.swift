import DualCamCore

extension Dualcam_V1_VideoSettings {
    /// The settings as both sides speak of them; zero values mean "the agent's default".
    public init(width: Int, height: Int, rate: FrameRate, encoder: String, preset: String, crf: Int?,
                bitrate: Int?, segmentMilliseconds: Int, genlock: Bool) {
        self.init()
        self.width = UInt32(width)
        self.height = UInt32(height)
        fpsNum = UInt32(rate.numerator)
        fpsDen = UInt32(rate.denominator)
        self.encoder = encoder
        self.preset = preset
        self.crf = UInt32(crf ?? 0)
        self.bitrate = UInt64(bitrate ?? 0)
        segmentMs = UInt32(segmentMilliseconds)
        self.genlock = genlock
    }
}

extension Dualcam_V1_VideoSettings {
    /// A size and rate only, as an Error's `fits` carries them (§19).
    public init(mode: CaptureMode) {
        self.init()
        width = UInt32(clamping: mode.width)
        height = UInt32(clamping: mode.height)
        fpsNum = UInt32(clamping: mode.rate.numerator)
        fpsDen = UInt32(clamping: mode.rate.denominator)
    }

    /// The size and rate of a validated message (MessageValidation.checkFits).
    public var mode: CaptureMode {
        CaptureMode(width: Int(width), height: Int(height), rate: FrameRate(Int64(max(fpsNum, 1)), Int64(max(fpsDen, 1))))
    }
}
