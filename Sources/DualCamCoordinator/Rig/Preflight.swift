import DualCamCore
import DualCamProtocol
import Foundation

/// One screen before every take (the terminal prints it as the countdown starts; the
/// studio shows the same lines): what each node will record and how, what it lacks said
/// loudly, the nodes that are not there and those there that cannot record (NOT READY,
/// with why). Built from what the agents said at Prepare and in HelloAck or Telemetry.
enum Preflight {
    struct Node {
        var name: String
        var role: String
        /// Ready's description: source, encoder, sound.
        var source: String?
        var freeDiskBytes: Int64?
        var clockBoundNanoseconds: Int64?
        var temperatureC: Double?
        /// The preset the node chose (`auto`) or was given, with its measured speed.
        var encoding: String? = nil
    }

    /// `composite`: the live composite's choice (measured, with `auto`); nil: the plan's.
    /// `absent` and `notReady`: "NAME [role]: why", each read after a capitalised label.
    /// `laptopFreeBytes`: free space where this take's folder goes, which holds every
    /// camera's file and the composite (nil: not known).
    static func lines(plan: TakePlan, nodes: [Node], absent: [String], notReady: [String] = [],
                      composite: CompositePreset? = nil, laptopFreeBytes: Int64? = nil) -> [String] {
        let quality = plan.bitrate.map { "\($0 / 1000) kbit/s" } ?? "crf \(plan.crf)"
        var out = ["pre-flight: \(plan.width)x\(plan.height) at \(plan.rate) fps, \(plan.encoder) \(plan.preset) \(quality), "
                   + "\(nodes.count) camera\(nodes.count == 1 ? "" : "s")"]
        let bits = BitrateEstimate.bitsPerSecond(width: plan.width, height: plan.height, framesPerSecond: plan.rate.framesPerSecond,
                                                 crf: plan.bitrate == nil ? plan.crf : nil, bitrate: plan.bitrate)
        for node in nodes {
            var parts: [String] = []
            let source = node.source ?? "source not described"
            // A test pattern where a camera was meant, or a take without sound, is what
            // a user finds out too late: both are said in capitals.
            parts.append(source.hasPrefix("synthetic") ? "TEST PATTERN (" + source + ")" : source)
            if source.hasSuffix("no sound") { parts.append("NO SOUND") }
            if let encoding = node.encoding { parts.append(encoding) }
            if let free = node.freeDiskBytes, free > 0 {
                let hours = Double(free) / BitrateEstimate.storageBytes(bitsPerSecond: bits, seconds: 3600)
                parts.append(String(format: "%.1f GB free (about %@)", Double(free) / 1e9,
                                    hours >= 2 ? "\(Int(hours)) h" : "\(Int(hours * 60)) min"))
            }
            if let bound = node.clockBoundNanoseconds {
                // The clock's figure says nothing of when the camera captures: a camera that
                // runs free can be up to half a frame from the others however good its clock.
                // A steered one is held on the grid (docs/CLOCK.md, the phase lock).
                let free = nodes.count > 1 && !source.contains("genlocked")
                let steered = source.contains("phase-locked")
                parts.append("clock ±\(bound / 1000) µs" + (!free ? "" : steered
                    ? ", runs free, phase-locked onto the shared grid (within 0.5 ms once locked), phase shown live"
                    : String(format: ", runs free: up to %.1f ms (half a frame) from the others, phase shown live",
                             Double(plan.rate.periodNanoseconds) / 2e6)))
            }
            if let t = node.temperatureC { parts.append(String(format: "%.0f °C", t)) }
            out.append("  \(node.name) [\(node.role)]: " + parts.joined(separator: " · "))
        }
        for line in absent { out.append("  NOT HERE: " + line) }
        for line in notReady { out.append("  NOT READY: " + line) }
        let composite = composite ?? CompositePreset.choose(plan: plan, cameras: nodes.count)
        out.append("  composite: \(plan.encoder) \(composite.preset), tune zerolatency (\(composite.reason))")
        if let free = laptopFreeBytes, free > 0 {
            // Every camera's file plus the composite, at the same estimate as the nodes'.
            let hourly = BitrateEstimate.storageBytes(bitsPerSecond: bits, seconds: 3600) * Double(nodes.count + 1)
            let hours = Double(free) / max(hourly, 1)
            out.append(String(format: "  this computer: %.1f GB free in %@ (about %@ for %d file%@)", Double(free) / 1e9,
                              plan.outputDirectory, hours >= 2 ? "\(Int(hours)) h" : "\(Int(hours * 60)) min",
                              nodes.count + 1, nodes.count + 1 == 1 ? "" : "s"))
        }
        return out
    }
}
