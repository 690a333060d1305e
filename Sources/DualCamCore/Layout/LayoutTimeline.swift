/// The layout over a session: an initial spec and changes at presentation instants, with
/// the rules of `ChangeTimeline` (a change applies from the next frame at or after it).
public struct LayoutTimeline: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        /// Presentation time (nanoseconds from the session start T0) from which `spec` applies.
        public var presentationNanoseconds: Int64
        public var spec: LayoutSpec

        public init(presentationNanoseconds: Int64, spec: LayoutSpec) {
            self.presentationNanoseconds = presentationNanoseconds
            self.spec = spec
        }
    }

    private var timeline: ChangeTimeline<LayoutSpec>

    public init(initial: LayoutSpec) {
        timeline = ChangeTimeline(initial: initial)
    }

    /// The spec before the first change.
    public var initial: LayoutSpec { timeline.initial }

    /// The changes, in ascending time order (the initial spec is not among them).
    public var entries: [Entry] {
        timeline.changes.map { Entry(presentationNanoseconds: $0.presentationNanoseconds, spec: $0.value) }
    }

    public mutating func change(at presentationNanoseconds: Int64, to spec: LayoutSpec) {
        timeline.change(at: presentationNanoseconds, to: spec)
    }

    /// The spec for an output frame presented at `presentationNanoseconds`.
    public func spec(at presentationNanoseconds: Int64) -> LayoutSpec {
        timeline.value(at: presentationNanoseconds)
    }
}
