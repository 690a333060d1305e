import DualCamNet
import NIOCore
import NIOEmbedded
import NIOSSL
import Testing
@testable import DualCamStudio

/// The stranger's deadline on one connection, in simulated time: closed when no request
/// of it was admitted, let off once one was, also under TLS (`--https`), where the word
/// that it was admitted must pass the TLS handler on its way to the front.
@Suite struct StrangerTimeoutTests {
    func connection(tls: Bool) throws -> (EmbeddedChannel, ConnectionAdmission) {
        let admission = ConnectionAdmission(limits: .init(perAddress: 4, total: 4))
        let channel = EmbeddedChannel()
        let (ticket, _) = admission.admit(nil) {}
        try channel.pipeline.syncOperations.addHandler(StrangerTimeout(ticket: ticket, seconds: 10))
        if tls {
            let identity = try DeviceIdentity.generate(commonName: "stranger-test")
            let context = try NIOSSLContext(configuration: identity.browserTLSConfiguration())
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
        }
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, admission)
    }

    @Test func aStrangerIsClosedAtItsDeadline() throws {
        let (channel, admission) = try connection(tls: false)
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive, "an idle stranger outlived its deadline")
        #expect(admission.held == 0)
    }

    @Test(arguments: [false, true]) func anAdmittedConnectionIsLetOff(tls: Bool) throws {
        let (channel, admission) = try connection(tls: tls)
        #expect(admission.held == 1)
        channel.triggerUserOutboundEvent(StudioConnectionAdmitted(), promise: nil)
        #expect(admission.held == 0, "its place is still held")
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(channel.isActive, "an admitted connection was closed at the stranger's deadline")
        _ = try? channel.finish()
    }
}
