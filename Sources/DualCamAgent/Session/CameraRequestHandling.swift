import DualCamCore
import DualCamProtocol
import Foundation

extension CoordinatorLink {
    /// A coordinator reads or changes the camera's controls (PROTOCOL.md §18): the change
    /// is applied off the connection's handler (ioctls and a file write), and answered
    /// with the camera as it now is. Whatever the camera refuses is in the answer; the
    /// recording, if any, goes on untouched.
    func camera(_ request: Dualcam_V1_CameraRequest, _ c: Context) {
        let service = CameraControlsService.current.withLockedValue { $0 }
        let change = CameraWire.change(request)
        Thread.detachNewThread { [logger] in
            var report = service?.handle(change) ?? CameraReport(camera: "none", note: "this agent has no camera service")
            report.outcomes = Array(report.outcomes.prefix(CameraWire.maxResults))
            do {
                try c.connection.send(.cameraState(CameraWire.state(report, requestID: request.requestID)))
            } catch {
                logger.warning("CameraState not sent: \(error)")
            }
        }
    }
}

