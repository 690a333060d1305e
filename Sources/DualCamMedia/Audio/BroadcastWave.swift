import Foundation

/// What a Broadcast Wave file says of itself besides its sound: the `bext` chunk (EBU Tech
/// 3285: description, originator, and `TimeReference`, the first sample's position in
/// samples since midnight, which editors place the file by) and an `iXML` chunk with the
/// same start as timecode, which Premiere, Resolve and Avid read where bext is ignored.
public struct BroadcastWave: Sendable, Equatable {
    public var description: String
    public var originator: String
    public var originatorReference: String
    /// "yyyy-mm-dd" and "hh:mm:ss".
    public var originationDate: String
    public var originationTime: String
    public var timeReferenceSamples: UInt64
    /// "HH:MM:SS:FF" and the rate it counts at (e.g. "30", "30000/1001").
    public var timecode: String
    public var timecodeRate: String
    public var dropFrame: Bool
    public var project: String
    public var note: String

    public init(description: String, originator: String, originatorReference: String, originationDate: String,
                originationTime: String, timeReferenceSamples: UInt64, timecode: String, timecodeRate: String,
                dropFrame: Bool, project: String, note: String) {
        self.description = description
        self.originator = originator
        self.originatorReference = originatorReference
        self.originationDate = originationDate
        self.originationTime = originationTime
        self.timeReferenceSamples = timeReferenceSamples
        self.timecode = timecode
        self.timecodeRate = timecodeRate
        self.dropFrame = dropFrame
        self.project = project
        self.note = note
    }

    /// The `bext` and `iXML` chunks, each padded to an even length as RIFF asks.
    func chunks(sampleRate: Int) -> Data {
        var bext = Data()
        func text(_ s: String, _ width: Int) {
            var bytes = Array(s.utf8.prefix(width))
            bytes += [UInt8](repeating: 0, count: width - bytes.count)
            bext.append(contentsOf: bytes)
        }
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bext.append(contentsOf: $0) } }
        text(description, 256)
        text(originator, 32)
        text(originatorReference, 32)
        text(originationDate, 10)
        text(originationTime, 8)
        u32(UInt32(truncatingIfNeeded: timeReferenceSamples))
        u32(UInt32(truncatingIfNeeded: timeReferenceSamples >> 32))
        withUnsafeBytes(of: UInt16(1).littleEndian) { bext.append(contentsOf: $0) }  // version 1: UMID, no loudness
        bext.append(Data(count: 64 + 10 + 180))  // UMID, loudness, reserved

        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <BWFXML><IXML_VERSION>1.61</IXML_VERSION><PROJECT>\(Self.escaped(project))</PROJECT>\
            <NOTE>\(Self.escaped(note))</NOTE>\
            <SPEED><MASTER_SPEED>\(timecodeRate)</MASTER_SPEED><CURRENT_SPEED>\(timecodeRate)</CURRENT_SPEED>\
            <TIMECODE_RATE>\(timecodeRate)</TIMECODE_RATE><TIMECODE_FLAG>\(dropFrame ? "DF" : "NDF")</TIMECODE_FLAG>\
            <FILE_SAMPLE_RATE>\(sampleRate)</FILE_SAMPLE_RATE>\
            <TIMESTAMP_SAMPLE_RATE>\(sampleRate)</TIMESTAMP_SAMPLE_RATE>\
            <TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_HI>\(timeReferenceSamples >> 32)</TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_HI>\
            <TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO>\(timeReferenceSamples & 0xFFFF_FFFF)</TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO>\
            </SPEED><BEXT><BWF_DESCRIPTION>\(Self.escaped(description))</BWF_DESCRIPTION>\
            <BWF_ORIGINATOR>\(Self.escaped(originator))</BWF_ORIGINATOR>\
            <BWF_TIME_REFERENCE_LOW>\(timeReferenceSamples & 0xFFFF_FFFF)</BWF_TIME_REFERENCE_LOW>\
            <BWF_TIME_REFERENCE_HIGH>\(timeReferenceSamples >> 32)</BWF_TIME_REFERENCE_HIGH></BEXT>\
            <START_TIMECODE>\(timecode)</START_TIMECODE></BWFXML>
            """
        var out = Data()
        func chunk(_ id: String, _ body: Data) {
            out.append(contentsOf: Array(id.utf8))
            withUnsafeBytes(of: UInt32(body.count).littleEndian) { out.append(contentsOf: $0) }
            out.append(body)
            if body.count % 2 == 1 { out.append(0) }
        }
        chunk("bext", bext)
        chunk("iXML", Data(xml.utf8))
        return out
    }

    private static func escaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
