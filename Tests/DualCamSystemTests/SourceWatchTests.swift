@testable import DualCamAgent
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

/// The agent's check of its camera (issue 36): said once when it goes, once when it is
/// back, nothing while it stays; and a node that names a camera that is not there is told so.
struct SourceWatchTests {
    static let missing = "camera /dev/video9 is missing: plug it in"

    @Test func aCameraGoingAndComingBackIsSaidOnceEach() {
        var state = SourceWatchState()
        #expect(state.observe(nil) == nil, "a camera there at start is not news")
        #expect(state.observe(Self.missing) == .missing(Self.missing))
        #expect(state.problem == Self.missing)
        #expect(state.observe(Self.missing) == nil, "a camera still missing is said once, not every 2 s")
        #expect(state.observe("camera /dev/video9 cannot be opened") == .missing("camera /dev/video9 cannot be opened"))
        #expect(state.observe(nil) == .back)
        #expect(state.problem == nil)
        #expect(state.observe(nil) == nil)
        var atStart = SourceWatchState()
        #expect(atStart.observe(Self.missing) == .missing(Self.missing), "a camera missing at start is said at start")
    }

    @Test func listenersHearEachChangeUntilTheyLeave() {
        let answer = NIOLockedValueBox<String?>(Self.missing)
        let watch = SourceWatch(source: .v4l2(device: "/dev/video9", pixelFormat: nil), logger: Logger(label: "test"),
                                check: { _ in answer.withLockedValue { $0 } })
        let heard = NIOLockedValueBox<[String?]>([])
        let token = watch.listen { problem in heard.withLockedValue { $0.append(problem) } }
        watch.checkNow()
        watch.checkNow()
        #expect(watch.problem == Self.missing)
        answer.withLockedValue { $0 = nil }
        watch.checkNow()
        #expect(watch.problem == nil)
        #expect(heard.withLockedValue { $0 } == [Self.missing, nil])
        watch.unlisten(token)
        answer.withLockedValue { $0 = Self.missing }
        watch.checkNow()
        #expect(heard.withLockedValue { $0 }.count == 2)
    }

    /// The real check: a device node that does not exist, one that is not a camera; the
    /// synthetic source and a pipe are always there.
    @Test func aMissingDeviceOrANodeThatIsNoCameraIsNamedWithWhatToDo() throws {
        let gone = try #require(SourceWatch.problem(.v4l2(device: "/dev/video-dualcam-none", pixelFormat: nil)))
        #expect(gone.hasPrefix("camera /dev/video-dualcam-none is missing: plug it in, or set `device =` in agent.conf"), "\(gone)")
        let notCamera = try #require(SourceWatch.problem(.v4l2(device: "/dev/null", pixelFormat: nil)))
        #expect(notCamera.hasPrefix("/dev/null is not a camera"), "\(notCamera)")
        #expect(notCamera.contains("`dualcam-agent cameras`"))
        #expect(SourceWatch.problem(.synthetic) == nil)
        #expect(SourceWatch.problem(.stdin(.h264)) == nil)
    }
}
