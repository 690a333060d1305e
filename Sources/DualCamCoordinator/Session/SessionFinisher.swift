import DualCamNet
import DualCamCore
import Foundation

/// Closes a collected session: the per-camera files, the composite's tail and the
/// manifest, with a progress bar while the composite catches up.
enum SessionFinisher {
    static func finish(_ collector: SessionCollector, progress: @escaping @Sendable (String) -> Void) async throws -> SessionResult {
        let t0 = collector.t0
        let stop = collector.stopShared ?? (t0 + (collector.agents.map(\.receivedUpToNanoseconds).max() ?? 0))
        for (i, agent) in collector.agents.enumerated() where !agent.missingSegments.isEmpty {
            collector.warnings.append("\(agent.name): segments \(agent.missingSegments) never arrived; its file has a gap there")
            collector.outputs.stopAwaiting(camera: i)
        }
        let stats = collector.agents.map { a in
            var s = CameraStatistics(name: a.name, role: a.role.name,
                                     framesCaptured: Int(a.finished?.framesCaptured ?? 0),
                                     framesDropped: Int(a.finished?.framesDropped ?? 0),
                                     segments: a.receiver?.received.count ?? 0,
                                     clockOffsetNanoseconds: a.clock?.offsetNs ?? 0, clockRatePPM: a.clock?.ratePpm ?? 0,
                                     clockErrorBoundNanoseconds: a.clock?.errorBoundNs ?? 0)
            s.clockRoundTripNanoseconds = a.clock?.roundTripNs ?? 0
            s.clockOverSession = ClockSummary(a.clockHistory)
            s.reconnects = a.reconnects
            s.rejoins = a.rejoins
            s.missingSegments = a.missingSegments
            return s
        }
        let outputs = collector.outputs
        let collected = Double(MonotonicTime.now() - stop) / 1e9
        let bar = Task {
            let inPlace = isatty(STDERR_FILENO) == 1
            var last = -1
            while !Task.isCancelled {
                let (done, total) = outputs.progress()
                let percent = total == 0 ? 100 : done * 100 / total
                if percent != last && (inPlace || percent == 100 || percent / 25 != last / 25) {
                    let filled = percent / 5
                    let text = "finalising [" + String(repeating: "#", count: filled) + String(repeating: " ", count: 20 - filled) + "] \(percent)%"
                    if inPlace { FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8)) } else { progress(text) }
                    last = percent
                }
                try? await Task.sleep(nanoseconds: 200_000_000)
            }
            if inPlace { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        }
        defer { bar.cancel() }
        let result = try await outputs.finish(t0Shared: t0, durationNanoseconds: stop - t0, cameras: stats,
                                              deviceIDs: collector.agents.map { "\($0.endpoint.deviceID)" },
                                              warnings: collector.warnings)
        bar.cancel()
        _ = await bar.value
        let afterStop = Double(MonotonicTime.now() - stop) / 1e9
        progress(String(format: "files final %.2f s after the stop instant (every segment in after %.2f s)", afterStop, collected))
        let started = MonotonicTime.now()
        do {
            for e in try outputs.addSoundSyncReport() {
                progress(String(format: "sound check: %@ against %@ %+.2f ms at the start, %+.2f ms at the end (confidence %.2f / %.2f), measured in %.1f s",
                                e.camera, e.reference, Double(e.startOffsetNanoseconds) / 1e6, Double(e.endOffsetNanoseconds) / 1e6,
                                e.startConfidence, e.endConfidence, Double(MonotonicTime.now() - started) / 1e9))
            }
        } catch {
            progress("sound check not written into the manifest: \(error)")
        }
        return result
    }
}
