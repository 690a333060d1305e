import DualCamTestSupport
import Testing
@testable import DualCamProtocol

@Suite struct UploadTests {
    static let chunk = WireProtocol.maxSegmentChunkBytes

    static func connected(window: UInt64 = 0) throws -> MachinePair {
        var pair = MachinePair(window: window)
        try pair.connect()
        return pair
    }

    /// Sends chunks of `key` from `offset` while the window admits them; returns the new offset.
    static func sendWhileWindowAllows(_ pair: inout MachinePair, session: String, index: UInt32, from offset: UInt64, size: UInt64) throws -> UInt64 {
        var offset = offset
        while offset < size {
            let count = Int(min(UInt64(chunk), size - offset))
            guard UInt64(count) <= pair.agent.uploadWindowAvailable else { break }
            try pair.agentSends(.segmentData(Envelopes.data(session, index: index, offset: offset, count: count, size: size)))
            offset += UInt64(count)
        }
        return offset
    }

    @Test func agentCannotExceedTheWindowUntilAcked() throws {
        var pair = try Self.connected(window: 1)  // raised to one chunk
        #expect(pair.agent.uploadWindowCapacity == UInt64(Self.chunk))
        let size = UInt64(4 * Self.chunk)
        try pair.agentSends(.segmentOffer(Envelopes.offer("s", index: 0, size: size)))
        try pair.agentSends(.segmentData(Envelopes.data("s", index: 0, offset: 0, count: Self.chunk, size: size)))
        #expect(pair.agent.uploadWindowAvailable == 0)
        #expect {
            try pair.agentSends(.segmentData(Envelopes.data("s", index: 0, offset: UInt64(Self.chunk), count: 1, size: size)))
        } throws: { ($0 as? ProtocolError)?.code == .flowControl }
        try pair.pump()
        #expect(pair.coordinator.uploadBytesInFlight == UInt64(Self.chunk))
        try pair.coordinatorSends(.segmentAck(Envelopes.ack("s", index: 0, received: UInt64(Self.chunk))))
        try pair.pump()
        #expect(pair.agentEvents.last == .uploadWindowOpened(availableBytes: UInt64(Self.chunk)))
        try pair.agentSends(.segmentData(Envelopes.data("s", index: 0, offset: UInt64(Self.chunk), count: Self.chunk, size: size)))
    }

    @Test func wholeSegmentsFlowThroughASmallWindow() throws {
        var pair = try Self.connected(window: UInt64(2 * Self.chunk))
        var delivered = 0
        for index in UInt32(0)..<5 {
            let size = UInt64(3 * Self.chunk + 1000 * Int(index) + 1)
            try pair.agentSends(.segmentOffer(Envelopes.offer("s", index: index, size: size)))
            var offset: UInt64 = 0
            while offset < size {
                offset = try Self.sendWhileWindowAllows(&pair, session: "s", index: index, from: offset, size: size)
                try pair.pump()
                // The coordinator "writes" what it got and acknowledges it.
                let received = pair.coordinatorEvents.reduce(0) { n, e in
                    if case .segmentData(let d) = e, d.index == index { n + d.data.count } else { n }
                }
                try pair.coordinatorSends(.segmentAck(Envelopes.ack("s", index: index, received: UInt64(received), durable: UInt64(received) == size)))
                try pair.pump()
            }
            delivered += 1
        }
        #expect(delivered == 5)
        #expect(pair.agent.uploadWindowAvailable == pair.agent.uploadWindowCapacity)
        #expect(pair.coordinator.uploadBytesInFlight == 0)
        #expect(pair.agentClosed == nil && pair.coordinatorClosed == nil)
    }

    @Test func coordinatorDropsAnAgentThatIgnoresTheWindow() throws {
        var pair = try Self.connected(window: 1)
        let size = UInt64(4 * Self.chunk)
        var seq: UInt64 = 100
        func next() -> UInt64 { seq += 1; return seq }
        _ = pair.coordinator.receive(Envelopes.envelope(.segmentOffer(Envelopes.offer("s", index: 0, size: size)), sequence: next()), now: pair.now)
        let first = pair.coordinator.receive(Envelopes.envelope(.segmentData(Envelopes.data("s", index: 0, offset: 0, count: Self.chunk, size: size)), sequence: next()), now: pair.now)
        #expect(first.closeError() == nil)
        let second = pair.coordinator.receive(Envelopes.envelope(.segmentData(Envelopes.data("s", index: 0, offset: UInt64(Self.chunk), count: 10, size: size)), sequence: next()), now: pair.now)
        #expect(second.sentError()?.code == .errorFlowControl)
        #expect(pair.coordinator.state == .closed)
    }

    @Test func malformedTransfersAreRefused() throws {
        func coordinatorAfter(_ bodies: [Dualcam_V1_Envelope.OneOf_Body]) throws -> [CoordinatorConnectionStateMachine.Action] {
            var pair = try Self.connected()
            var last: [CoordinatorConnectionStateMachine.Action] = []
            for (i, b) in bodies.enumerated() {
                last = pair.coordinator.receive(Envelopes.envelope(b, sequence: 100 + UInt64(i)), now: pair.now)
            }
            return last
        }
        let offer = Dualcam_V1_Envelope.OneOf_Body.segmentOffer(Envelopes.offer("s", index: 1, size: 1000))
        // Data without an offer.
        #expect(try coordinatorAfter([.segmentData(Envelopes.data("s", index: 1, offset: 0, count: 10, size: 1000))]).sentError()?.code == .errorBadState)
        // A gap.
        #expect(try coordinatorAfter([offer, .segmentData(Envelopes.data("s", index: 1, offset: 5, count: 10, size: 1000))]).sentError()?.code == .errorBadMessage)
        // last not set on the final chunk.
        var unterminated = Envelopes.data("s", index: 1, offset: 0, count: 1000, size: 1000)
        unterminated.last = false
        #expect(try coordinatorAfter([offer, .segmentData(unterminated)]).sentError()?.code == .errorBadMessage)
        // Past the end.
        #expect(try coordinatorAfter([offer, .segmentData(Envelopes.data("s", index: 1, offset: 0, count: 1001, size: 1000))]).sentError()?.code == .errorBadMessage)
        // A new offer before the last chunk of the previous one.
        #expect(try coordinatorAfter([offer, .segmentData(Envelopes.data("s", index: 1, offset: 0, count: 10, size: 1000)),
                                       .segmentOffer(Envelopes.offer("s", index: 2, size: 10))]).sentError()?.code == .errorBadState)
        // Bad checksums and sizes.
        var shortHash = Envelopes.offer("s", index: 1, size: 1000)
        shortHash.sha256 = .init(count: 31)
        #expect(try coordinatorAfter([.segmentOffer(shortHash)]).sentError()?.code == .errorBadMessage)
        #expect(try coordinatorAfter([.segmentOffer(Envelopes.offer("s", index: 1, size: 0))]).sentError()?.code == .errorBadMessage)
        #expect(try coordinatorAfter([.segmentOffer(Envelopes.offer("s", index: 1, size: 10, resume: 11))]).sentError()?.code == .errorBadMessage)
        // An oversize chunk.
        let big = UInt64(2 * Self.chunk)
        #expect(try coordinatorAfter([.segmentOffer(Envelopes.offer("s", index: 1, size: big)),
                                       .segmentData(Envelopes.data("s", index: 1, offset: 0, count: Self.chunk + 1, size: big))]).sentError()?.code == .errorBadMessage)
    }

    @Test func coordinatorCannotAcknowledgeWhatItDidNotReceive() throws {
        var pair = try Self.connected()
        #expect(throws: ProtocolError.self) { try pair.coordinatorSends(.segmentAck(Envelopes.ack("s", index: 0, received: 1))) }
        try pair.agentSends(.segmentOffer(Envelopes.offer("s", index: 0, size: 100)))
        try pair.agentSends(.segmentData(Envelopes.data("s", index: 0, offset: 0, count: 50, size: 100)))
        try pair.pump()
        #expect(throws: ProtocolError.self) { try pair.coordinatorSends(.segmentAck(Envelopes.ack("s", index: 0, received: 51))) }
        try pair.coordinatorSends(.segmentAck(Envelopes.ack("s", index: 0, received: 50)))
    }

    @Test func resumeAfterReconnectStartsAtTheRequestedOffset() throws {
        var pair = try Self.connected()
        try pair.coordinatorSends(.segmentRequest(Envelopes.request("s", index: 3, offset: 700)))
        try pair.pump()
        guard case .segmentRequested(let request, let requestSequence)? = pair.agentEvents.last else {
            Issue.record("no request event"); return
        }
        #expect(request.offset == 700)
        let offer = try pair.agent.send(.segmentOffer(Envelopes.offer("s", index: 3, size: 1000, resume: 700)), now: pair.now)
        #expect(offer.inReplyTo == requestSequence, "the answer names the request")
        try pair.route(agentActions: [.send(offer)])
        try pair.agentSends(.segmentData(Envelopes.data("s", index: 3, offset: 700, count: 300, size: 1000)))
        try pair.pump()
        #expect(pair.coordinatorEvents.suffix(2).count == 2)
        guard case .segmentData(let d)? = pair.coordinatorEvents.last else { Issue.record("no data"); return }
        #expect(d.offset == 700 && d.last)
        try pair.coordinatorSends(.segmentAck(Envelopes.ack("s", index: 3, received: 1000, durable: true)))
        try pair.pump()
        #expect(pair.coordinator.uploadBytesInFlight == 0)
        #expect(pair.agent.uploadWindowAvailable == pair.agent.uploadWindowCapacity)
    }

    @Test func requestThatCrossesAnOfferLeavesBothWindowsConsistent() throws {
        var pair = try Self.connected(window: UInt64(2 * Self.chunk))
        let size = UInt64(6 * Self.chunk)
        // Agent starts offering segment 0 while the coordinator asks for it from 0 again.
        try pair.agentSends(.segmentOffer(Envelopes.offer("s", index: 0, size: size, resume: 0)))
        var offset = try Self.sendWhileWindowAllows(&pair, session: "s", index: 0, from: 0, size: size)
        try pair.coordinatorSends(.segmentRequest(Envelopes.request("s", index: 0, offset: 0)))
        try pair.pump()
        // The crossed offer and its data were dropped, and the agent abandoned it.
        #expect(!pair.coordinatorEvents.contains { if case .segmentOffered = $0 { true } else { false } })
        #expect(pair.agent.uploadWindowAvailable == pair.agent.uploadWindowCapacity)
        #expect(pair.coordinator.uploadBytesInFlight == 0)
        // The answering offer is accepted and the transfer completes.
        try pair.agentSends(.segmentOffer(Envelopes.offer("s", index: 0, size: size, resume: 0)))
        offset = 0
        while offset < size {
            offset = try Self.sendWhileWindowAllows(&pair, session: "s", index: 0, from: offset, size: size)
            try pair.pump()
            try pair.coordinatorSends(.segmentAck(Envelopes.ack("s", index: 0, received: offset, durable: offset == size)))
            try pair.pump()
        }
        #expect(pair.coordinatorEvents.contains { if case .segmentOffered = $0 { true } else { false } })
        #expect(pair.agentClosed == nil && pair.coordinatorClosed == nil)
    }

    @Test func durableAckMidTransferEndsItOnBothSides() throws {
        var pair = try Self.connected()
        let size = UInt64(3 * Self.chunk)
        try pair.agentSends(.segmentOffer(Envelopes.offer("s", index: 0, size: size)))
        try pair.agentSends(.segmentData(Envelopes.data("s", index: 0, offset: 0, count: Self.chunk, size: size)))
        // The coordinator already holds this segment from an earlier connection.
        #expect(try pair.deliverOneToCoordinator())
        try pair.coordinatorSends(.segmentAck(Envelopes.ack("s", index: 0, received: 0, durable: true)))
        try pair.pump()  // the chunk still in flight is dropped quietly
        #expect(throws: ProtocolError.self) {
            try pair.agentSends(.segmentData(Envelopes.data("s", index: 0, offset: UInt64(Self.chunk), count: 10, size: size)))
        }
        try pair.agentSends(.segmentOffer(Envelopes.offer("s", index: 1, size: 10)))
        try pair.agentSends(.segmentData(Envelopes.data("s", index: 1, offset: 0, count: 10, size: 10)))
        try pair.pump()
        #expect(pair.agentClosed == nil && pair.coordinatorClosed == nil)
        #expect(pair.agent.uploadWindowAvailable == pair.agent.uploadWindowCapacity - 10)
    }

    @Test func checksumMismatchIsRetriedFromZero() throws {
        var pair = try Self.connected()
        try pair.agentSends(.segmentOffer(Envelopes.offer("s", index: 0, size: 10)))
        try pair.agentSends(.segmentData(Envelopes.data("s", index: 0, offset: 0, count: 10, size: 10)))
        try pair.pump()
        var mismatch = Dualcam_V1_Error()
        mismatch.code = .errorChecksumMismatch
        mismatch.sessionID = "s"
        try pair.coordinatorSends(.error(mismatch))
        try pair.coordinatorSends(.segmentRequest(Envelopes.request("s", index: 0, offset: 0)))
        try pair.pump()
        #expect(pair.coordinator.uploadBytesInFlight == 0)
        try pair.agentSends(.segmentOffer(Envelopes.offer("s", index: 0, size: 10)))
        try pair.agentSends(.segmentData(Envelopes.data("s", index: 0, offset: 0, count: 10, size: 10)))
        try pair.pump()
        let offers = pair.coordinatorEvents.filter { if case .segmentOffered = $0 { true } else { false } }
        #expect(offers.count == 2)
        #expect(pair.agentClosed == nil && pair.coordinatorClosed == nil)
    }

    @Test func declinedRequestIsForgotten() throws {
        var pair = try Self.connected()
        try pair.coordinatorSends(.segmentRequest(Envelopes.request("s", index: 9, offset: 0)))
        try pair.pump()
        guard case .segmentRequested(_, let requestSequence)? = pair.agentEvents.last else { Issue.record("no request"); return }
        var gone = Dualcam_V1_Error()
        gone.code = .errorSegmentUnavailable
        gone.sessionID = "s"
        try pair.agentSends(.error(gone), inReplyTo: requestSequence)
        try pair.pump()
        // A later offer of that segment (without in_reply_to) is a fresh transfer, not dropped.
        try pair.agentSends(.segmentOffer(Envelopes.offer("s", index: 9, size: 10)))
        try pair.pump()
        #expect(pair.coordinatorEvents.last == .segmentOffered(Envelopes.offer("s", index: 9, size: 10)))
    }

    @Test func randomInterleavingsNeverTripTheWindow() throws {
        // Frames are delivered one at a time in a random order of directions, acks and
        // re-requests come at random moments: the agent must never exceed what the
        // coordinator enforces, whatever crosses what.
        var bytesDelivered = 0
        var offersDelivered = 0
        defer {
            // Guards against the loop silently doing nothing.
            #expect(offersDelivered > 100 && bytesDelivered > 10 * Self.chunk)
        }
        for seed in UInt64(1)...40 {
            var rng = SplitMix64(seed: seed)
            var pair = try Self.connected(window: UInt64(Self.chunk + 5000))
            defer {
                for case .segmentData(let d) in pair.coordinatorEvents { bytesDelivered += d.data.count }
                offersDelivered += pair.coordinatorEvents.count { if case .segmentOffered = $0 { true } else { false } }
            }
            var index: UInt32 = 0
            var size: UInt64 = 0
            var sent: UInt64 = 0
            var offering = false
            for _ in 0..<400 {
                switch rng.below(6) {
                case 0:
                    if !offering || sent == size {
                        index += 1
                        size = UInt64(1 + rng.below(3 * Self.chunk))
                        try pair.agentSends(.segmentOffer(Envelopes.offer("s", index: index, size: size)))
                        sent = 0
                        offering = true
                    }
                case 1, 2:
                    if offering, sent < size, pair.agent.uploadWindowAvailable > 0 {
                        let count = Int(min(UInt64(1 + rng.below(Self.chunk)), size - sent, pair.agent.uploadWindowAvailable))
                        do {
                            try pair.agentSends(.segmentData(Envelopes.data("s", index: index, offset: sent, count: count, size: size)))
                            sent += UInt64(count)
                        } catch {
                            // Abandoned by a request or ended by a durable ack: offer anew.
                            offering = false
                        }
                    }
                case 3:
                    _ = try pair.deliverOneToCoordinator()
                case 4:
                    _ = try pair.deliverOneToAgent()
                default:
                    // The coordinator acknowledges what it has, sometimes durably, or asks again.
                    let received: UInt64 = pair.coordinatorEvents.reduce(0) { n, e in
                        switch e {
                        case .segmentOffered(let o) where o.index == index: o.resumeOffset
                        case .segmentData(let d) where d.index == index: d.offset + UInt64(d.data.count)
                        default: n
                        }
                    }
                    if rng.below(8) == 0 {
                        try? pair.coordinatorSends(.segmentRequest(Envelopes.request("s", index: index, offset: 0)))
                    } else {
                        try? pair.coordinatorSends(.segmentAck(Envelopes.ack("s", index: index, received: received, durable: received == size && rng.below(2) == 0)))
                    }
                }
                #expect(pair.agentClosed == nil, "seed \(seed)")
                #expect(pair.coordinatorClosed == nil, "seed \(seed)")
                if pair.agentClosed != nil || pair.coordinatorClosed != nil { return }
            }
        }
    }
}
