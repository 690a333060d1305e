import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing
@testable import DualCamNet

/// Admission ranks strangers by what they proved (issue 36, item 9): a flood of half-open
/// TLS connections from the coordinator's own address, each a fragment of a ClientHello,
/// must not evict the coordinator's connection, whose ClientHello arrived whole.
@Suite struct AdmissionProofTests {
    final class Closed: Sendable {
        let ids = NIOLockedValueBox<[Int]>([])
    }

    static let address = try! SocketAddress(ipAddress: "127.0.0.1", port: 40000)

    @Test func aWholeClientHelloOutlastsAFloodOfFragments() {
        let admission = ConnectionAdmission(limits: .init(perAddress: 4, total: 64))
        let closed = Closed()
        var tickets: [ConnectionAdmission.Ticket] = []
        func admit(_ n: Int) { tickets.append(admission.admit(Self.address) { closed.ids.withLockedValue { $0.append(n) } }.0) }
        for n in 0..<4 { admit(n) }
        tickets[1].proved(.clientHello)  // the coordinator, second to connect
        for n in 4..<1000 { admit(n) }
        let gone = Set(closed.ids.withLockedValue { $0 })
        #expect(!gone.contains(1), "the connection that sent a whole ClientHello was evicted by fragments")
        #expect(gone.count == 1000 - 4 && admission.held == 4)
        // Among equals the oldest goes: the newest three fragments are the ones still held.
        #expect(Set(0..<1000).subtracting(gone) == [1, 997, 998, 999])
    }

    @Test func aFlooderThatSendsWholeClientHellosIsStillEvictedOldestFirst() {
        let admission = ConnectionAdmission(limits: .init(perAddress: 2, total: 64))
        let closed = Closed()
        var tickets: [ConnectionAdmission.Ticket] = []
        for n in 0..<6 {
            tickets.append(admission.admit(Self.address) { closed.ids.withLockedValue { $0.append(n) } }.0)
            tickets[n].proved(.clientHello)
        }
        #expect(closed.ids.withLockedValue { $0 } == [0, 1, 2, 3])
    }

    /// The watch sees a record's header and length across fragments, passes every byte
    /// on, proves the ticket only once the whole record is in, and leaves the pipeline.
    @Test func theWatchProvesOnlyAWholeFirstRecord() throws {
        for (chunks, whole) in [([[22, 3, 1, 0, 8, 1, 0]], false), ([[22, 3], [1, 0, 3, 1], [0, 0]], true),
                                ([[23, 3, 3, 0, 1, 9]], false)] as [([[UInt8]], Bool)] {
            let admission = ConnectionAdmission(limits: .init(perAddress: 2, total: 64))
            let closed = Closed()
            let (ticket, _) = admission.admit(Self.address) { closed.ids.withLockedValue { $0.append(0) } }
            let channel = EmbeddedChannel(handler: ClientHelloWatch(ticket: ticket))
            var passed: [UInt8] = []
            for chunk in chunks {
                try channel.writeInbound(ByteBuffer(bytes: chunk))
                while let out: ByteBuffer = try channel.readInbound() { passed += out.readableBytesView }
            }
            #expect(passed == chunks.flatMap { $0 })
            // A later fragment, then a newcomer from the same address: the proved one
            // survives, else, the oldest, it goes.
            _ = admission.admit(Self.address) { closed.ids.withLockedValue { $0.append(1) } }
            _ = admission.admit(Self.address) { closed.ids.withLockedValue { $0.append(2) } }
            #expect(closed.ids.withLockedValue { $0 } == (whole ? [1] : [0]), "\(chunks)")
            _ = try? channel.finish()
        }
    }
}
