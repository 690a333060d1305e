/// Steers a Raspberry Pi camera module onto the shared frame grid through the path that
/// exists on the Pi: `rpicam-vid --sync client`, fed with packets that say where our grid's
/// frames fall on the Pi's wall clock, as a sync server's would say where its own fall.
/// The client (libcamera's `rpi.sync`) shortens or lengthens one frame by its distance to
/// the nearest such instant, each time a packet comes. docs/RASPBERRY-PI.md argues this path
/// against setting libcamera's frame duration ourselves.
///
/// Two quirks of the client decide what is sent. It takes its frames' distance to the
/// server's instant in whole periods by truncating towards zero, so a server instant
/// later than the client's frame can make it lengthen a frame by up to a period and a
/// half: the instant sent is a grid frame some periods before now, which the client's
/// latest frame is certain to follow. And it corrects at once, with no filter, on the frame
/// a packet came, but the sensor takes that frame length 4 to 6 frames later: packets
/// come far enough apart for each correction to show before the next is measured.
///
/// Pure: the shell gives the shared instant now and where the wall clock stands against
/// the shared clock, and sends what this returns, every `intervalNanoseconds`.
public struct PiSyncFeeder: Sendable, Hashable {
    public let rate: FrameRate
    /// Frames between packets: 10, against the client's 4-6 frames from measuring a
    /// phase to the sensor's frames moving (a sync server sends every 30).
    public var framesBetweenPackets: Int64 = 7
    /// How many periods before now the instant sent lies.
    public var periodsBack: Int64 = 4

    public init(rate: FrameRate) {
        self.rate = rate
    }

    public var intervalNanoseconds: Int64 { rate.instant(ofFrame: framesBetweenPackets) }

    /// The packet for `nowShared`, where the wall clock reads `wallMinusSharedNanoseconds`
    /// more than the shared clock (both nanoseconds). Ready at once: a client records from
    /// its ready instant, and our grid is in place before any take begins.
    public func packet(nowShared: Int64, wallMinusSharedNanoseconds offset: Int64) -> PiSyncPacket {
        let grid = GenlockGrid(rate: rate)
        let frame = grid.frameIndex(atOrAfter: nowShared) - periodsBack
        let wall = grid.sharedInstant(ofFrame: frame) + offset
        let microseconds = UInt64(max(wall, 0) / 1_000)
        return PiSyncPacket(frameDurationMicroseconds: UInt32((rate.periodNanoseconds + 500) / 1_000),
                            frameWallClockMicroseconds: microseconds, readyWallClockMicroseconds: microseconds)
    }
}
