import NIOConcurrencyHelpers

/// Streams of the same values for whoever subscribed (the rig's snapshots and notices, the
/// studio's plan changes); one whose reader went away (a closed browser tab) is
/// forgotten, so a rig up for days does not collect them.
public final class Subscribers<Element: Sendable>: Sendable {
    private let continuations = NIOLockedValueBox<[UInt64: AsyncStream<Element>.Continuation]>([:])
    private let nextID = NIOLockedValueBox<UInt64>(0)

    public init() {}

    public func add(bufferingNewest limit: Int) -> AsyncStream<Element> {
        let id = nextID.withLockedValue { $0 += 1; return $0 }
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(limit))
        continuation.onTermination = { [continuations] _ in continuations.withLockedValue { _ = $0.removeValue(forKey: id) } }
        continuations.withLockedValue { $0[id] = continuation }
        return stream
    }

    public func yield(_ element: Element) {
        for continuation in continuations.withLockedValue({ Array($0.values) }) { continuation.yield(element) }
    }

    public func finish() {
        for continuation in continuations.withLockedValue({ Array($0.values) }) { continuation.finish() }
    }
}
