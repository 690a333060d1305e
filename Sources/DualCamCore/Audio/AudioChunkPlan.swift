/// What to do with one chunk of captured audio so that it lands where it belongs on the
/// session's timeline: write `silenceBefore` zeros, discard the first `dropInput` input
/// samples, and resample the rest into exactly `output` samples.
public struct AudioChunkPlan: Sendable, Equatable {
    /// Leading input samples to discard (captured before t0, or a hard correction when the
    /// output is ahead of the card).
    public var dropInput: Int
    /// Output samples of silence before this chunk (a gap such as an overrun, or a first
    /// chunk that starts after t0).
    public var silenceBefore: Int
    /// Output samples the remaining `count - dropInput` input samples must become.
    public var output: Int

    public init(dropInput: Int, silenceBefore: Int, output: Int) {
        self.dropInput = dropInput
        self.silenceBefore = silenceBefore
        self.output = output
    }
}
