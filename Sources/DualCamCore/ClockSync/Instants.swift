/// An instant on one node's own monotonic clock (an agent's CLOCK_MONOTONIC, with its
/// simulated error in tests), in nanoseconds: when a frame was captured, when a sound chunk
/// began, when to wake for the next frame. It never meets a `SharedInstant` except through
/// a `ClockEstimate`, which knows the offset and the rate between the two clocks; the types
/// keep a local reading from passing for a shared one (a frame stamped hours off).
public struct LocalInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static func < (a: Self, b: Self) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: Self, d: Int64) -> Self { Self(nanoseconds: a.nanoseconds &+ d) }
    public static func - (a: Self, d: Int64) -> Self { Self(nanoseconds: a.nanoseconds &- d) }
    /// How far apart two readings of the same clock are.
    public static func - (a: Self, b: Self) -> Int64 { a.nanoseconds &- b.nanoseconds }

    public var description: String { "local \(nanoseconds) ns" }
}

/// An instant on the rig's shared clock (the coordinator's monotonic clock, onto which every
/// agent maps its own), in nanoseconds: T0, a take's stop, the frame grid, a capture
/// instant as the files and the DCTC codes carry it.
public struct SharedInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// A node with no estimate yet (or a lone node, whose own clock is its take's clock)
    /// takes its local reading for the shared one: said here, where it happens, not by a
    /// bare number passed on.
    public init(unsynchronised local: LocalInstant) { nanoseconds = local.nanoseconds }

    public static func < (a: Self, b: Self) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: Self, d: Int64) -> Self { Self(nanoseconds: a.nanoseconds &+ d) }
    public static func - (a: Self, d: Int64) -> Self { Self(nanoseconds: a.nanoseconds &- d) }
    /// How far apart two instants of the shared clock are.
    public static func - (a: Self, b: Self) -> Int64 { a.nanoseconds &- b.nanoseconds }

    public var description: String { "shared \(nanoseconds) ns" }
}
