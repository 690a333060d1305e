/// The datagram of libcamera's Raspberry Pi software camera sync (`rpi.sync`, what
/// `rpicam-vid --sync server` sends and `--sync client` obeys): the C struct `SyncPayload`
/// as it lies in a Pi's memory, 40 bytes little-endian, 8-byte aligned. Only the server's
/// frame period, one of its frame instants and its ready instant are read by a client;
/// the two system-clock fields are never written by a server and are sent as zero here.
/// Instants are microseconds on the wall clock (CLOCK_REALTIME), since 1970.
public struct PiSyncPacket: Sendable, Hashable {
    public static let size = 40
    /// The server's frame period in µs (a client divides by it: never zero).
    public var frameDurationMicroseconds: UInt32
    /// A frame instant of the server in wall-clock µs: the client puts its frames a whole
    /// number of periods from it.
    public var frameWallClockMicroseconds: UInt64
    /// When the server declares the cameras in sync (rpicam-vid records from then on).
    public var readyWallClockMicroseconds: UInt64

    public init(frameDurationMicroseconds: UInt32, frameWallClockMicroseconds: UInt64, readyWallClockMicroseconds: UInt64) {
        precondition(frameDurationMicroseconds > 0, "a client divides by the period")
        (self.frameDurationMicroseconds, self.frameWallClockMicroseconds, self.readyWallClockMicroseconds)
            = (frameDurationMicroseconds, frameWallClockMicroseconds, readyWallClockMicroseconds)
    }

    public var bytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.size)
        Self.put(UInt64(frameDurationMicroseconds), bytes: 4, at: 0, into: &out)
        Self.put(frameWallClockMicroseconds, bytes: 8, at: 16, into: &out)
        Self.put(readyWallClockMicroseconds, bytes: 8, at: 32, into: &out)
        return out
    }

    /// Reads what a client reads; nil for a datagram of another size or a zero period.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.size else { return nil }
        let duration = UInt32(Self.get(bytes, bytes: 4, at: 0))
        guard duration > 0 else { return nil }
        self.init(frameDurationMicroseconds: duration, frameWallClockMicroseconds: Self.get(bytes, bytes: 8, at: 16),
                  readyWallClockMicroseconds: Self.get(bytes, bytes: 8, at: 32))
    }

    private static func put(_ value: UInt64, bytes count: Int, at offset: Int, into out: inout [UInt8]) {
        for index in 0..<count { out[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
    }

    private static func get(_ bytes: [UInt8], bytes count: Int, at offset: Int) -> UInt64 {
        (0..<count).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }
}
