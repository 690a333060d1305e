/// The layout over a session: an initial spec and changes at presentation instants.
///
/// A change at instant t applies to every output frame whose presentation time is at or
/// after t, so it takes effect from the next frame at or after t, never from a frame
/// already under way. Changes are kept sorted; a second change at the same instant
/// replaces the first.
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

    /// The spec before the first change.
    public let initial: LayoutSpec
    /// The changes, in ascending time order (the initial spec is not among them).
    public private(set) var entries: [Entry] = []

    public init(initial: LayoutSpec) {
        self.initial = initial
    }

    public mutating func change(at presentationNanoseconds: Int64, to spec: LayoutSpec) {
        let i = count { $0 < presentationNanoseconds }
        let entry = Entry(presentationNanoseconds: presentationNanoseconds, spec: spec)
        if i < entries.count && entries[i].presentationNanoseconds == presentationNanoseconds {
            entries[i] = entry
        } else {
            entries.insert(entry, at: i)
        }
    }

    /// The spec for an output frame presented at `presentationNanoseconds`.
    public func spec(at presentationNanoseconds: Int64) -> LayoutSpec {
        let i = count { $0 <= presentationNanoseconds }
        return i == 0 ? initial : entries[i - 1].spec
    }

    /// How many leading changes have an instant satisfying `isBefore` (binary search;
    /// `isBefore` must hold for a prefix of the sorted entries).
    private func count(_ isBefore: (Int64) -> Bool) -> Int {
        var lo = 0, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if isBefore(entries[mid].presentationNanoseconds) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
