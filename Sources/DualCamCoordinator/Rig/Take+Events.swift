import DualCamCore
import DualCamMedia
import DualCamNet
import DualCamProtocol
import Foundation

extension Take {
    /// An event of one of the take's agents' connections.
    func handle(_ event: CoordinatorEvent, from i: Int, now: Int64) throws {
        agents[i].lastHeard = now
        switch event {
        case .connected(let ack):
            // Back after a loss (a resumed take's agents all start lost).
            if !machine.agents[i].connected { agents[i].reconnects += 1 }
            feed(.connected(agent: i, recordingThisTake: ack.recordingSessions.contains(sessionID), now: now))
        case .clockStatus(let clock):
            agents[i].clock = clock
            // The manifest's figures are the take's: the seconds of convergence before it
            // (hundreds of microseconds of bound, rates off by hundreds of ppm) made a third
            // of the reports and set the take's bound p99 at 4x the locked one.
            if agents[i].startAtSent, machine.agents[i].connected {
                agents[i].clockHistory.add(offsetNanoseconds: clock.offsetNs, ratePPM: clock.ratePpm,
                                           errorBoundNanoseconds: clock.errorBoundNs, roundTripNanoseconds: clock.roundTripNs,
                                           locked: clock.state == .clockLocked)
            }
            feed(.clock(agent: i, locked: clock.state == .clockLocked, boundNanoseconds: clock.errorBoundNs, now: now))
        case .ready(let ready):
            guard ready.sessionID == sessionID else { return }
            agents[i].source = WireIdentifier.printable(ready.sourceDescription)
            let encoder = EncoderReport(ready, rate: plan.rate)
            agents[i].encoder = encoder
            reportEncoder(i, encoder)
            for warning in ready.warnings {
                warnOnce("ready\(i):\(warning)", "\(agents[i].name): \(WireIdentifier.printable(warning))")
            }
            feed(.ready(agent: i, now: now))
        case .prepareFailed(let error):
            guard error.sessionID == sessionID else { return }
            agents[i].errors.append(error.message)
            if error.code == .errorTooSlow, !error.fits.isEmpty {
                // What the node measured it can encode, for this take's refit and the
                // next takes' fitting: the rig's record of the node keeps it.
                members[rigIndices[i]].encodable = error.fits.map(\.mode)
                if !machine.agents[i].rejoining, outputs == nil {
                    refit(after: i, now: now)
                    return
                }
            }
            feed(.prepareFailed(agent: i, reason: error.message, now: now))
        case .readyTimedOut:
            break  // the take's own deadline decides
        case .previewFrame:
            break  // the rig's preview hub takes these before any take sees them
        case .sessionForgotten:
            break  // only `delete` asks, on a connection of its own
        case .cameraState:
            break  // `camera` asks on a connection of its own
        case .sourceStatus:
            break  // the rig says it; a camera lost mid-take ends its recording by itself (no frames)
        case .telemetry(let telemetry):
            checkHealth(i, telemetry)
        case .encoderStatus(let status):
            guard status.sessionID == sessionID else { return }
            agents[i].encoderStatus = status
            if !status.shortfall.isEmpty { warnOnce("shortfall\(i)", "\(agents[i].name): \(status.shortfall)") }
        case .segmentOffered(let offer):
            guard let receiver = agents[i].receiver, offer.sessionID == sessionID else { return }
            if try !receiver.offer(offer) {
                acknowledge(offer.index, bytes: offer.size, durable: true, to: i)
            }
        case .segmentData(let chunk):
            guard let receiver = agents[i].receiver, chunk.sessionID == sessionID else { return }
            if let done = try receiver.data(chunk) {
                acknowledge(UInt32(done.index), bytes: done.offer.size, durable: true, to: i)
                agents[i].receivedUpToNanoseconds = max(agents[i].receivedUpToNanoseconds, done.offer.firstPtsNs + done.offer.durationNs)
                if let camera = cameraOf[i] {
                    outputs?.add(segment: done.path, index: done.index, camera: camera,
                                 firstPresentationNanoseconds: done.offer.firstPtsNs, durationNanoseconds: done.offer.durationNs)
                }
                noteIfComplete(i)
            } else if let due = receiver.progressDue(every: WireProtocol.defaultUploadWindowBytes / 4) {
                // Written, not yet durable: opens the agent's upload window (§8.3).
                acknowledge(due.index, bytes: due.receivedBytes, durable: false, to: i)
            }
        case .recordingFinished(let finished):
            feed(.idle(agent: i, true, now: now))
            // Stopped before it started (prepared again at another size, `refit`): it
            // recorded nothing, and will be prepared again.
            guard machine.agents[i].started else { return }
            guard finished.sessionID == sessionID, !machine.agents[i].rejoining else { return }
            agents[i].finished = finished
            for note in finished.notes {
                warnOnce("note\(i):\(note)", "\(agents[i].name): \(WireIdentifier.printable(note))")
            }
            feed(.finished(agent: i))
            noteIfComplete(i)
        case .peerError(let error):
            agents[i].errors.append(error.message)
            warn("\(agents[i].name): \(error.message)")
            if error.code == .errorSegmentUnavailable && error.sessionID == sessionID && agents[i].finished == nil {
                feed(.unavailable(agent: i))
            }
        }
    }

    /// Agent `i` refused the Prepare as too slow, naming what it can encode: within this
    /// start, every node prepares again at the largest mode all can encode when the size
    /// and rate came from a quality preset; otherwise the take fails, saying what to pass.
    private func refit(after i: Int, now: Int64) {
        let wanted = CaptureMode(width: plan.width, height: plan.height, rate: plan.rate)
        let nodes = agents.indices.filter { machine.agents[$0].inTake }.map { (name: agents[$0].name, fits: member($0).encodable) }
        switch EncodableRefit.decide(wanted, nodes: nodes, fitsSize: plan.fitsSizeToCameras, fitsRate: plan.fitsRateToCameras) {
        case .prepareAgain(let mode):
            notice("\(agents[i].name) cannot encode \(wanted) in real time: preparing every camera again at \(mode), "
                   + "the most every node measured it can encode")
            (plan.width, plan.height, plan.rate) = (mode.width, mode.height, mode.rate)
            feed(.refit(agent: i, rate: mode.rate, now: now))
        case .refuse(let reason):
            // The take fails with it: the start's caller says it (no notice twice).
            feed(.refused(agent: i, reason: reason, now: now))
        }
    }

    private func noteIfComplete(_ i: Int) {
        guard agents[i].complete else { return }
        if let camera = cameraOf[i] { outputs?.stopAwaiting(camera: camera) }
        feed(.complete(agent: i))
    }

    /// The agent's connection ended; the rig reconnects it.
    func lost(_ i: Int, reason: String, now: Int64) {
        agents[i].receiver?.abandonTransfer()
        feed(.lost(agent: i, now: now))
    }

    private func acknowledge(_ index: UInt32, bytes: UInt64, durable: Bool, to i: Int) {
        var ack = Dualcam_V1_SegmentAck()
        ack.sessionID = sessionID
        ack.index = index
        ack.durable = durable
        ack.receivedBytes = bytes
        send(.segmentAck(ack), to: i)
    }

    private func checkHealth(_ i: Int, _ t: Dualcam_V1_Telemetry) {
        if t.freeDiskBytes > 0 && t.freeDiskBytes < 500_000_000 {
            warnOnce("disk\(i)", "\(agents[i].name) has \(t.freeDiskBytes / 1_000_000) MB of storage left")
        }
        if t.throttleFlags & 0xF != 0 {
            warnOnce("throttle\(i)", "\(agents[i].name) is throttling (flags 0x\(String(t.throttleFlags, radix: 16))): cool it or lower the preset")
        }
    }

    // MARK: The operator's controls

    /// Changes the composite from the next output frame on; the change goes into the
    /// layout, filter or mix timeline (and the manifest).
    func apply(_ command: RigCommand, now: Int64) throws {
        switch command {
        case .filter(let filter):
            changeFilter(FilterSetting(filter), now: now)
            return
        case .mix(let mix):
            let names = agents.map(\.cameraName).filter { !$0.isEmpty }
            if !names.isEmpty {
                do { try mix.check(cameraNames: names) } catch { throw RigError("\(error)") }
            }
            changeMix(mix, now: now)
            return
        case .nextLayout, .swap, .nextPlacement, .layout:
            break
        case .director(let follow):
            guard plan.director != nil else {
                throw RigError("this take records without the director: start it with --director auto (or `director = auto` in coordinator.conf)")
            }
            if follow {
                guard let (outputs, at) = nextOutputFrame(now: now) else { return }
                outputs.handBack(at: at)
                notice(String(format: "the director has the programme from %.2f s", Double(at) / 1e9))
                return
            }
        case .live(let on):
            guard !plan.streams.isEmpty else { throw RigError(TakePlan.noStreams) }
            if !on && plan.liveOnly {
                notice("live ended; this take was live without recording, so nothing of it is kept")
                feed(.stop(now: now, reason: "live ended"))
                return
            }
            plan.goesLive = on
            outputs?.setLive(on)
            notice(on ? "going live: the programme streams again" : "live ended: the programme no longer streams (the take records on)")
            return
        case .start, .stop, .stopRecording, .goLive:
            return  // the rig's (`Rig.perform`)
        }
        // Every camera records at the plan's size, which is also the composite's. Taking the
        // programme from the director puts the operator's own layout on from the next frame.
        let taken: LayoutSpec? = if case .director = command { layout } else { nil }
        guard let spec = try taken ?? layout.applying(command, width: plan.width, height: plan.height, streamCount: agents.count)
        else { return }
        guard let (outputs, at) = nextOutputFrame(now: now) else {
            layout = spec
            plan.layout = spec
            return
        }
        outputs.changeLayout(at: at, to: spec)
        layout = spec
        notice(String(format: "layout from %.2f s: %@", Double(at) / 1e9, spec.description))
    }

    /// The combined file's filter from the next output frame, kept in the manifest's
    /// filter timeline as layout changes are in its layout timeline.
    private func changeFilter(_ setting: FilterSetting, now: Int64) {
        guard let (outputs, at) = nextOutputFrame(now: now) else {
            plan.filter = setting.filter
            filter = setting
            return
        }
        outputs.changeFilter(at: at, to: setting)
        filter = setting
        notice(String(format: "filter from %.2f s: %@", Double(at) / 1e9, setting.description))
    }

    /// The combined file's sound mix from the sample of the next output frame, kept in the
    /// manifest's mix timeline.
    private func changeMix(_ spec: AudioMixSpec, now: Int64) {
        guard let (outputs, at) = nextOutputFrame(now: now) else {
            plan.mix = spec
            mix = spec
            return
        }
        outputs.changeMix(at: at, to: spec)
        mix = spec
        notice(String(format: "sound mix from %.2f s: %@", Double(at) / 1e9, spec.description))
    }

    /// Where a change made now lands: the first output frame at or after now (or the
    /// stop), once the take has outputs; nil before T0.
    private func nextOutputFrame(now: Int64) -> (SessionOutputs, Int64)? {
        guard let t0, let outputs else { return nil }
        let since = min(now, stopShared ?? .max) - t0
        return (outputs, plan.rate.instant(ofFrame: plan.rate.firstFrame(atOrAfter: max(0, since))))
    }

    // MARK: The output disk

    /// The session folder's disk is full: the take ends here without stopping the agents,
    /// which record on and keep every segment; `resume` collects it all once there is room.
    func outputFailed(_ full: OutputDiskFull, now: Int64) {
        let reason = explain(full)
        // Kept for the manifest and logged, but not said here: the take's failure says it,
        // and the same long sentence twice in a row read as two problems.
        warnings.append(reason)
        logger.info("\(reason) (\(full.underlying))")
        feed(.outputFailed(reason: reason, now: now))
    }

    /// What to tell the user about an error that ended the take's writing: with what to do
    /// when it came from a full disk.
    func explain(_ error: any Error) -> String {
        let full = error as? OutputDiskFull
        let free = FreeSpace.bytes(at: sessionDirectory) ?? .max
        guard full != nil || free < OutputDiskFull.floorBytes else { return "\(error)" }
        let what = full.map { "\($0)" } ?? "\(error) (\(free / 1000) kB free on the disk holding \(sessionDirectory))"
        return "\(what): the coordinator stopped writing \(sessionID) and did not stop the agents; they record on "
            + "and keep every segment in their spools. Free space on that disk, then run "
            + "`dualcam-coordinator resume \(sessionID) --out \(plan.outputDirectory)` to collect the rest and finish the files"
    }

    // MARK: Finishing

    /// Closes the files: per-camera, the composite's tail and the manifest.
    func finish() async throws -> TakeResult {
        guard let outputs, let t0 else { throw CoordinatorError("the take has no files to finish") }
        let stop = stopShared ?? (t0 + (agents.map(\.receivedUpToNanoseconds).max() ?? 0))
        let cameras = cameraOf.sorted { $0.value < $1.value }.map(\.key)
        // Read, never written, while finishing: the rig's screens read the take meanwhile.
        var warnings = self.warnings
        for i in cameras where !agents[i].lostAtSource.isEmpty {
            warnings.append("\(agents[i].name): segments \(agents[i].lostAtSource) were gone or damaged in its spool (see its "
                + "log); its file has a gap there")
        }
        for i in cameras where !Set(agents[i].missingSegments).subtracting(agents[i].lostAtSource).isEmpty {
            let never = agents[i].missingSegments.filter { !agents[i].lostAtSource.contains($0) }
            warnings.append("\(agents[i].name): segments \(never) never arrived; its file has a gap there")
            outputs.stopAwaiting(camera: cameraOf[i] ?? 0)
        }
        for i in cameras {
            let (dropped, captured) = (Int(agents[i].finished?.framesDropped ?? 0), Int(agents[i].finished?.framesCaptured ?? 0))
            if let words = DropReport.warning(name: agents[i].name, dropped: dropped, captured: captured,
                                              width: plan.width, height: plan.height, rate: plan.rate) {
                warnings.append(words)
            }
        }
        // Said now too, not only written into the manifest: the person at the screen must
        // learn that a file has a gap.
        for gap in warnings.dropFirst(self.warnings.count) { notice("warning: " + gap) }
        let stats = cameras.map { i in
            let a = agents[i]
            var s = CameraStatistics(name: a.name, role: a.role.name,
                                     // What the file holds: an agent restarted mid-take reports only
                                     // what its new process captured.
                                     framesCaptured: a.receiver?.framesHeld ?? Int(a.finished?.framesCaptured ?? 0),
                                     framesDropped: Int(a.finished?.framesDropped ?? 0),
                                     segments: a.receiver?.received.count ?? 0,
                                     clockOffsetNanoseconds: a.clock?.offsetNs ?? 0, clockRatePPM: a.clock?.ratePpm ?? 0,
                                     clockErrorBoundNanoseconds: a.clock?.errorBoundNs ?? 0)
            s.clockRoundTripNanoseconds = a.clock?.roundTripNs ?? 0
            s.clockOverSession = ClockSummary(a.clockHistory)
            s.reconnects = a.reconnects
            s.rejoins = a.rejoins
            s.missingSegments = a.missingSegments
            s.encoding = CameraEncoding(a.encoder, switches: a.finished?.presetSwitches ?? [])
            s.source = a.source
            s.zoomTimeline = a.zoomChanges.isEmpty ? nil : a.zoomChanges
            return s
        }
        let collected = Double(clock.now - stop) / 1e9
        let result = try await outputs.finish(t0Shared: t0, durationNanoseconds: stop - t0, cameras: stats,
                                              deviceIDs: cameras.map { "\(agents[$0].endpoint.deviceID)" }, warnings: warnings,
                                              sinceStop: stop)
        if plan.liveOnly { return await discardLiveOnly(result) }
        let afterStop = Double(clock.now - stop) / 1e9
        notice(String(format: "files final %.2f s after the stop instant (every segment in after %.2f s)", afterStop, collected))
        // Where the files are comes before the optional checks below, which read them
        // back for seconds: the person waiting for the paths need not wait for those.
        notice("files: " + (result.perCameraFiles + [result.combinedFile]).joined(separator: ", "))
        if let cpu = outputs.cpu { notice(cpu.summary) }
        let started = clock.now
        do {
            let reports = try outputs.addSyncReports()
            let took = Double(clock.now - started) / 1e9
            for e in reports.sound {
                notice(String(format: "sound check: %@ against %@ %+.2f ms at the start, %+.2f ms at the end (confidence %.2f / %.2f)",
                              e.camera, e.reference, Double(e.startOffsetNanoseconds) / 1e6, Double(e.endOffsetNanoseconds) / 1e6,
                              e.startConfidence, e.endConfidence))
            }
            for c in reports.clockTruth?.cameras ?? [] {
                let pair = c.pairError.map { String(format: "; against %@ p99 %.0f µs, max %.0f µs", c.reference ?? "", $0.p99Microseconds, $0.maxMicroseconds) } ?? ""
                notice(String(format: "clock truth (frame codes): %@ error median %.0f µs, p99 %.0f µs, mean %+.0f µs over %d frames%@",
                              c.camera, c.trueError.p50Microseconds, c.trueError.p99Microseconds, c.trueError.meanMicroseconds,
                              c.trueError.frames, pair))
            }
            if let spread = reports.clockTruth?.spread, (reports.clockTruth?.cameras.count ?? 0) > 2 {
                notice(String(format: "clock truth (frame codes): all %d cameras within p99 %.0f µs, max %.0f µs of each other over %d instants",
                              reports.clockTruth?.cameras.count ?? 0, spread.p99Microseconds, spread.maxMicroseconds, spread.frames))
            }
            for w in reports.warnings { notice("warning: " + w) }
            if !reports.sound.isEmpty || reports.clockTruth != nil { notice(String(format: "sync checks took %.1f s", took)) }
        } catch {
            notice("sync checks not written into the manifest: \(error)")
        }
        return result
    }

    // MARK: What screens see

    func status(now: Int64) -> TakeStatus {
        var status = TakeStatus(sessionID: record == nil && machine.t0 == nil ? nil : sessionID, phase: machine.phase.kind,
                                isOver: machine.phase.isOver, countdownSeconds: nil, elapsedSeconds: 0, finalising: nil,
                                layout: layout.description, warnings: warnings, reason: nil, files: result?.kept == false ? nil : result,
                                cameras: rigIndices, outputWidth: plan.width, outputHeight: plan.height,
                                filter: filter, mix: mix, preflight: preflight)
        switch machine.phase {
        case .countingDown(let t0, _) where plan.countdownSeconds > 0:
            // A lead without a countdown is the start's own margin, not one to show.
            // T0 sits on the frame grid just after the countdown: never show more than asked.
            status.countdownSeconds = min(plan.countdownSeconds, Int((t0 - now + 999_999_999) / 1_000_000_000))
        case .recording(let t0, _), .stopping(let t0, _), .finalising(let t0, _):
            status.elapsedSeconds = Double(max(0, min(now, stopShared ?? now) - t0)) / 1e9
        case .failed(let reason), .cancelled(let reason):
            status.reason = reason
        default:
            break
        }
        if plan.director != nil {
            let state = outputs?.director
            status.director = .init(following: state?.following ?? true, speaking: state?.speaking ?? [],
                                    shot: state?.shot.map { $0.shown(of: rigIndices.count) },
                                    programme: state?.shot.map { $0.layout(base: layout, cameras: rigIndices.count).description },
                                    cuts: state?.cuts ?? 0)
        }
        status.framePhase = outputs?.framePhase
        status.liveOut = outputs?.liveOut ?? []
        status.liveOnly = plan.liveOnly
        if case .finalising = machine.phase, let outputs {
            let p = outputs.progress()
            status.finalising = .init(done: p.done, total: p.total)
        }
        if case .done = machine.phase, let t0, let stop = stopShared {
            status.elapsedSeconds = Double(stop - t0) / 1e9
        }
        return status
    }
}

extension Take {
    /// Warned when the node has less than the headroom even at the fastest preset (the
    /// pre-flight lines show every node's choice).
    func reportEncoder(_ i: Int, _ report: EncoderReport) {
        guard let speed = report.speed, speed < PresetChoice.headroom else { return }
        warnOnce("tight\(i)", "\(agents[i].name): even \(report.preset) encodes only \(String(format: "%.1f", speed))x real time "
                 + "on this node; a busier node will drop frames: record smaller or at a lower rate")
    }
}
