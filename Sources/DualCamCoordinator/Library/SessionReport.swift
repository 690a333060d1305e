import DualCamProtocol
import Foundation

/// `show`: a session's manifest in words, with the files as they are on disk now.
public enum SessionReport {
    public static func lines(_ session: SessionFolder) -> [String] {
        report(session).map(LibraryFormat.printable)
    }

    private static func report(_ session: SessionFolder) -> [String] {
        var out = ["Session \(session.id)   \(session.path)", "  status    \(session.status)",
                   "  started   \(LibraryFormat.date(session.date))",
                   "  duration  \(LibraryFormat.duration(session.durationSeconds))",
                   "  size      \(LibraryFormat.bytes(session.totalBytes))"]
        out += ["", "Files"] + files(session)
        guard let m = session.manifest else { return out }

        let s = m.settings
        out += ["", "Settings",
                "  \(s.width)x\(s.height) at \(s.fps) fps, \(s.encoder) \(s.preset) crf \(s.crf), "
                    + String(format: "%.1f s segments, ", Double(s.segmentMilliseconds) / 1000)
                    + (s.genlock ? "genlocked sources" : "free-running sources")]

        out += ["", "Cameras"]
        for (i, camera) in m.cameras.enumerated() {
            let st = camera.statistics
            out.append("  \(i + 1). \(st.name) [\(st.role)]  \(camera.file)  device \(camera.deviceID)")
            if let source = st.source { out.append("     " + WireIdentifier.printable(source)) }
            out.append("     frames \(st.framesCaptured) captured, \(st.framesDropped) dropped, \(st.segments) segments")
            // Manifests from before the round trip was recorded hold 0 for it.
            out.append(String(format: "     clock offset %+.3f ms, rate %+.2f ppm, error bound %.3f ms",
                              st.clockOffsetNanoseconds / 1e6, st.clockRatePPM, Double(st.clockErrorBoundNanoseconds) / 1e6)
                + (st.clockRoundTripNanoseconds > 0
                    ? String(format: ", round trip %.3f ms", Double(st.clockRoundTripNanoseconds) / 1e6) : ""))
            if let h = st.clockOverSession {
                out.append(String(format: "     over the session (%d reports%@): error bound median %.0f µs, p99 %.0f µs, max %.0f µs; rate %+.2f to %+.2f ppm",
                                  h.reports, h.unlockedReports > 0 ? ", \(h.unlockedReports) not locked" : "",
                                  h.errorBoundP50Microseconds, h.errorBoundP99Microseconds, h.errorBoundMaxMicroseconds,
                                  h.rateMinPPM, h.rateMaxPPM))
            }
            if st.reconnects > 0 || st.rejoins > 0 || !st.missingSegments.isEmpty {
                out.append("     reconnected \(st.reconnects) times, rejoined \(st.rejoins) times"
                    + (st.missingSegments.isEmpty ? "" : ", segments missing: \(st.missingSegments.map(String.init).joined(separator: " "))"))
            }
        }

        let c = m.composite
        out += ["", "Composite  \(c.file)", "  layout \(c.layout), filter \(c.filter)", "  " + encoding(c, settings: s),
                "  \(c.ticks) frames: \(c.pairs) with every camera fresh, \(c.repeats) repeats, \(c.noSignal) no signal, "
                    + "\(c.droppedFrames) camera frames dropped",
                "  frame error  " + distribution(c.frameError),
                "  pair spread  " + distribution(c.pairSpread)]

        if let phase = m.framePhase {
            // Camera phase beside the clock's figures above: what a perfect clock cannot fix.
            out += ["", String(format: "Frame phase (camera timing, not clock error; a frame is %.2f ms)", phase.frameMs)]
                + phase.lines
        }

        out += ["", "Layout timeline", "  " + seconds(0) + "  " + c.layout]
        out += c.timeline.map { "  " + seconds($0.presentationNanoseconds) + "  " + $0.layout + ($0.by.map { "  (\($0))" } ?? "") }
        for file in [c] + (m.renders ?? []) {
            guard let d = file.director else { continue }
            out += ["", "Director  \(file.file)",
                    "  \(d.style): switch delay \(d.switchDelaySeconds) s, minimum shot \(d.minShotSeconds) s, \(d.cuts.count) cuts"
                        + (d.operatorSeconds.map { String(format: ", %.1f s by hand", $0) } ?? "")]
            out += d.cuts.map { "  " + seconds(Int64(($0.at * 1e9).rounded())) + "  " + $0.shot.joined(separator: " + ") }
        }

        if let renders = m.renders, !renders.isEmpty {
            out += ["", "Renders (recompose)"]
            for r in renders {
                out.append("  \(r.file)  layout \(r.layout), filter \(r.filter), " + encoding(r, settings: s)
                    + (r.recomposedAt.map { ", made \($0)" } ?? ""))
            }
        }

        if let imports = m.imports, !imports.isEmpty {
            out += ["", "Imports (other recorders, aligned by their sound)"]
            for i in imports {
                out.append(String(format: "  %@  %@ (%@, %.1f s), recorded from %+.4f s, drift %+.1f ppm, confidence %.0f %%",
                                  i.name, i.file, i.format, i.durationSeconds, i.offsetSeconds, i.driftPpm, i.confidence * 100)
                    + (i.pieces.count > 1 ? ", \(i.pieces.count) pieces (paused)" : "") + (i.kind == "video" ? ", video" : ""))
            }
        }

        out += ["", "Warnings"] + (m.warnings.isEmpty ? ["  none"] : m.warnings.map { "  " + $0 })
        return out
    }

    /// The files in the folder with their sizes; `segments/` summed.
    private static func files(_ session: SessionFolder) -> [String] {
        let fm = FileManager.default
        let names = ((try? fm.contentsOfDirectory(atPath: session.path)) ?? []).sorted()
        var rows: [[String]] = []
        for name in names {
            let path = session.path + "/" + name
            var isDirectory: ObjCBool = false
            _ = fm.fileExists(atPath: path, isDirectory: &isDirectory)
            if isDirectory.boolValue {
                let nested = SessionFolder(path: path)
                let count = fm.enumerator(atPath: path)?.allObjects.count ?? 0
                rows.append(["  " + name + "/", LibraryFormat.bytes(nested.totalBytes), "(\(count) entries)"])
            } else {
                let size = (try? fm.attributesOfItem(atPath: path))?[.size] as? NSNumber
                rows.append(["  " + name, LibraryFormat.bytes(size?.int64Value ?? 0), ""])
            }
        }
        rows += session.missingFiles.map { ["  " + $0, "missing", ""] }
        return LibraryFormat.table(rows)
    }

    private static func encoding(_ c: SessionManifest.Composite, settings s: SessionManifest.Settings) -> String {
        // Manifests from before the live composite wrote its own encoding: it was the
        // session's encoder at the composite's preset, which was not written either.
        guard let e = c.encoding else { return "encoded live: \(s.encoder) crf \(s.crf), tune zerolatency (preset not recorded)" }
        let quality = e.bitrate.map { String(format: "%.2f Mbit/s", Double($0) / 1e6) } ?? "crf \(e.crf ?? 23)"
        // `auto` (issue 19): what the measurement chose, and every step it took after.
        let automatic = e.automatic == true
            ? " (auto" + (e.speed.map { String(format: ": %.1fx real time", $0) } ?? "") + ")" : ""
        let steps = (e.switches ?? []).map {
            String(format: "; from %.1f s %@", Double($0.presentationNanoseconds) / 1e9, $0.preset)
        }.joined()
        return "encoded \(c.recomposedAt.map { "by recompose at \($0)" } ?? "live"): \(e.encoder) \(e.preset)\(automatic) \(quality)"
            + (e.tune.map { ", tune \($0)" } ?? "") + ", keyframe every \(e.gopFrames) frames" + steps
    }

    private static func distribution(_ d: SessionManifest.Distribution) -> String {
        String(format: "mean %.1f µs, p50 %.1f µs, p99 %.1f µs, max %.1f µs over %d",
               d.meanMicroseconds, d.p50Microseconds, d.p99Microseconds, d.maxMicroseconds, d.count)
    }

    private static func seconds(_ nanoseconds: Int64) -> String {
        String(format: "%8.3f s", Double(nanoseconds) / 1e9)
    }
}
