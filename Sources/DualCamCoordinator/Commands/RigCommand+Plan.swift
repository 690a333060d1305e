import DualCamCore

extension LayoutSpec {
    /// The layout a layout command leads to from this one, for a composite of this size
    /// and number of pictures (every camera records at the composite's size); nil for a
    /// command that changes no layout. The same step for a take (`Take.apply`) and for
    /// the layout the next take starts with (`TakePlan.applying`).
    func applying(_ command: RigCommand, width: Int, height: Int, streamCount: Int) throws(RigError) -> LayoutSpec? {
        var spec = self
        switch command {
        case .nextLayout:
            let kinds = LayoutKind.allCases
            spec = spec.switching(to: kinds[((kinds.firstIndex(of: spec.kind) ?? 0) + 1) % kinds.count])
        case .swap:
            spec.pip.swapped.toggle()
        case .nextPlacement:
            do {
                spec = try spec.nextPlacement(outputWidth: width, outputHeight: height, sourceWidth: width,
                                              sourceHeight: height, streamCount: streamCount)
            } catch {
                throw RigError("\(error)")
            }
        case .layout(let given):
            spec = given
        case .start, .stop, .stopRecording, .filter, .mix, .director, .live, .goLive:
            return nil
        }
        return spec
    }
}

extension TakePlan {
    /// The plan after a command given while no take is under way: the next take starts
    /// with its layout, filter, mix and director (the studio's controls before a take).
    /// `cameras`: how many pictures the next composite will have.
    public func applying(_ command: RigCommand, cameras: Int) throws(RigError) -> TakePlan {
        var next = self
        switch command {
        case .start, .stop, .stopRecording, .goLive:
            throw RigError("no take is under way")
        case .filter(let filter):
            next.filter = filter
        case .mix(let mix):
            next.mix = mix
        case .director(let follow):
            next.director = follow ? (director ?? DirectorSettings()) : nil
        case .live(let on):
            guard !streams.isEmpty else { throw RigError(TakePlan.noStreams) }
            next.goesLive = on
        case .layout, .nextLayout, .swap, .nextPlacement:
            if let spec = try layout.applying(command, width: width, height: height, streamCount: max(cameras, 1)) {
                next.layout = spec
            }
        }
        return next
    }
}
