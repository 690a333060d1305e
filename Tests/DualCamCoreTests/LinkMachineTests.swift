@testable import DualCamCore
import Testing

/// The decisions of one agent's link, on simulated time: what a closed connection means
/// before the first answer, in a take, between takes and while the rig shuts down.
@Suite struct LinkMachineTests {
    static let s: Int64 = 1_000_000_000

    @Test func aNewLinkIsConnectingUntilItAnswersAndLostFromItsFirstClose() {
        var link = LinkMachine()
        #expect(link.state == .connecting && !link.isConnected && link.lostSince == nil)
        link.connected()
        #expect(link.isConnected && link.everConnected)
        _ = link.closed(name: "host", reason: "reset", unansweredClose: false, context: .between, now: 5 * Self.s)
        #expect(link.lostSince == 5 * Self.s)
        // A second close before it is back keeps the first instant: "lost for 3 s" counts
        // from when the agent went, not from the last failed try.
        _ = link.closed(name: "host", reason: "refused", unansweredClose: false, context: .between, now: 8 * Self.s)
        #expect(link.lostSince == 5 * Self.s && link.lastReason == "refused")
        link.connected()
        #expect(link.lostSince == nil && link.isConnected)
    }

    @Test func aRefusalBeforeTheFirstAnswerFailsTheStartWithItsReason() {
        var link = LinkMachine()
        let actions = link.closed(name: "guest", reason: "certificate not trusted", unansweredClose: false,
                                  context: .waitingForFirstAnswer, now: 0)
        #expect(actions == [.failStart("lost agent guest while waiting for hello: certificate not trusted")])
    }

    @Test func unjudgedClosesAreTriedAgainTenTimesThenFailTheStart() {
        var link = LinkMachine()
        for n in 1...LinkMachine.unansweredCloseTries {
            let actions = link.closed(name: "host", reason: "closed unjudged", unansweredClose: true,
                                      context: .waitingForFirstAnswer, now: Int64(n) * Self.s)
            #expect(actions == [.notify("host: closed unjudged; trying again"), .reconnect], "try \(n)")
        }
        let last = link.closed(name: "host", reason: "closed unjudged", unansweredClose: true, context: .waitingForFirstAnswer, now: 20 * Self.s)
        #expect(last == [.failStart("lost agent host while waiting for hello: closed unjudged")])
    }

    @Test func aFirstOpenThatFailsIsRetriedAfterAPauseOnlyWhileUnjudged() {
        var link = LinkMachine()
        #expect(link.firstOpenFailed(reason: "refused", unansweredClose: false) == nil)
        #expect(link.lastReason == "refused")
        for _ in 0..<LinkMachine.unansweredCloseTries {
            #expect(link.firstOpenFailed(reason: "unjudged", unansweredClose: true) == 200_000_000)
        }
        #expect(link.firstOpenFailed(reason: "unjudged", unansweredClose: true) == nil)
    }

    @Test func anAgentThatAnsweredOnceIsReconnectedNotFailedWhileOthersAreAwaited() {
        var link = LinkMachine()
        link.connected()
        let actions = link.closed(name: "host", reason: "reset", unansweredClose: false, context: .waitingForFirstAnswer, now: 0)
        #expect(actions == [.notify("lost host (reset); reconnecting"), .reconnect])
    }

    @Test func inATakeTheTakeIsToldAndTheOperatorHearsItFromTheTake() {
        var link = LinkMachine()
        link.connected()
        let actions = link.closed(name: "guest", reason: "reset", unansweredClose: false, context: .inTake, now: 0)
        #expect(actions == [.tellTake(reason: "reset"), .reconnect])
    }

    @Test func betweenTakesALostAgentIsSaidOnceAndTriedAgainForever() {
        var link = LinkMachine()
        link.connected()
        #expect(link.closed(name: "guest", reason: "reset", unansweredClose: false, context: .between, now: 0)
            == [.notify("lost guest (reset); reconnecting"), .reconnect])
        // A failed reconnection is not a second loss to report.
        #expect(link.closed(name: "guest", reason: "refused", unansweredClose: false, context: .between, now: Self.s) == [.reconnect])
    }

    @Test func shuttingDownLosesNothingAndTriesNothing() {
        var link = LinkMachine()
        link.connected()
        #expect(link.closed(name: "host", reason: "closed", unansweredClose: false, context: .between, shuttingDown: true, now: 0) == [])
        var inTake = LinkMachine()
        inTake.connected()
        #expect(inTake.closed(name: "host", reason: "closed", unansweredClose: false, context: .inTake, shuttingDown: true, now: 0)
            == [.tellTake(reason: "closed")])
    }

    @Test func theNotAnsweredSentenceIsTheLastReasonOrTheAddress() {
        var link = LinkMachine()
        #expect(link.notAnswered(address: "10.0.0.2:7000") == "10.0.0.2:7000 did not answer")
        _ = link.firstOpenFailed(reason: "connection refused", unansweredClose: false)
        #expect(link.notAnswered(address: "10.0.0.2:7000") == "connection refused")
    }

    @Test func reconnectTriesComeAtAQuarterThenEveryHalfSecondThenEveryTwo() {
        var schedule = ReconnectSchedule()
        var triesAt: [Int] = []
        for tick in 1...600 where schedule.due() { triesAt.append(tick) }
        #expect(triesAt.prefix(3) == [1, 3, 5])
        // 121 tries in the first minute (1 + 120 at 0.5 s), then every 2 s.
        #expect(triesAt[120] == 241 && triesAt[121] == 249 && triesAt[122] == 257)
    }
}
