import DualCamCore
import DualCamMedia
import Foundation

/// `dualcam-bench avsync FILE... [--layout SPEC --streams N]`: the A/V offset of files
/// made from synthetic sources, from their tone-burst onsets against their DCTC second
/// crossings. A composite is read in stream 0's slot of `--layout`.
func runAVSyncMeasurement(arguments: [String]) throws {
    var files: [String] = []
    var layout: LayoutSpec?
    var streams = 2
    var i = 0
    while i < arguments.count {
        switch arguments[i] {
        case "--layout":
            i += 1
            guard i < arguments.count, let spec = try? LayoutSpec(parsing: arguments[i]) else { fatalError("--layout needs a layout spec") }
            layout = spec
        case "--streams":
            i += 1
            streams = Int(arguments[i]) ?? 2
        default: files.append(arguments[i])
        }
        i += 1
    }
    for file in files {
        let probe = try MediaProbe.probe(path: file)
        var reader: (YUV420Image) -> UInt32 = { DCTC.read($0) }
        if let layout {
            let slots = LayoutGeometry.slots(for: layout, outputWidth: probe.width, outputHeight: probe.height, streamCount: streams)
            guard let slot = slots.first(where: { $0.stream == 0 })?.rect else { fatalError("layout shows no stream 0") }
            reader = { DCTC.read($0, slot: slot, sourceWidth: probe.width, sourceHeight: probe.height) }
        }
        let m = try AVSyncProbe.measure(path: file, readCode: reader)
        let ms = m.offsetsNanoseconds.map { String(format: "%+.1f", Double($0) / 1e6) }
        print("\(file): \(m.offsetsNanoseconds.count) seconds matched (\(m.burstCount) bursts, \(m.crossingCount) crossings); "
            + String(format: "A/V offset mean %+.2f ms, worst %.2f ms", Double(m.meanNanoseconds) / 1e6, Double(m.worstNanoseconds) / 1e6))
        print("  per second (ms): \(ms.joined(separator: " "))")
    }
}
