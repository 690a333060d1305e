/// A value over a session: an initial value and changes at presentation instants (the
/// composite's layout, its filter).
///
/// A change at instant t applies to every output frame whose presentation time is at or
/// after t, so it takes effect from the next frame at or after t, never from a frame
/// already under way. Changes are kept sorted; a second change at the same instant
/// replaces the first.
public struct ChangeTimeline<Value: Sendable & Hashable>: Sendable, Hashable {
    public struct Change: Sendable, Hashable {
        /// Presentation time (nanoseconds from the session start T0) from which `value` applies.
        public var presentationNanoseconds: Int64
        public var value: Value

        public init(presentationNanoseconds: Int64, value: Value) {
            self.presentationNanoseconds = presentationNanoseconds
            self.value = value
        }
    }

    /// The value before the first change.
    public let initial: Value
    /// The changes, in ascending time order (the initial value is not among them).
    public private(set) var changes: [Change] = []

    public init(initial: Value) {
        self.initial = initial
    }

    public mutating func change(at presentationNanoseconds: Int64, to value: Value) {
        let i = count { $0 < presentationNanoseconds }
        let change = Change(presentationNanoseconds: presentationNanoseconds, value: value)
        if i < changes.count && changes[i].presentationNanoseconds == presentationNanoseconds {
            changes[i] = change
        } else {
            changes.insert(change, at: i)
        }
    }

    /// The value for an output frame presented at `presentationNanoseconds`.
    public func value(at presentationNanoseconds: Int64) -> Value {
        let i = count { $0 <= presentationNanoseconds }
        return i == 0 ? initial : changes[i - 1].value
    }

    /// How many leading changes have an instant satisfying `isBefore` (binary search;
    /// `isBefore` must hold for a prefix of the sorted changes).
    private func count(_ isBefore: (Int64) -> Bool) -> Int {
        var lo = 0, hi = changes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if isBefore(changes[mid].presentationNanoseconds) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
