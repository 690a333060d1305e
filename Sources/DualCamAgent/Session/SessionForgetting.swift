import DualCamProtocol
import Foundation

extension CoordinatorLink {
    /// The coordinator deleted a session (PROTOCOL.md §17): its spool goes, unless this
    /// agent still records it. The state machine has refused a session this connection
    /// prepares, records or stops; a recording outlives its connection, so the registry
    /// is asked as well.
    func forget(_ request: Dualcam_V1_ForgetSession, _ c: Context) {
        let sessionID = request.sessionID
        var answer = Dualcam_V1_SessionForgotten()
        answer.sessionID = sessionID
        if registry.recording.contains(sessionID) {
            answer.reason = "it is recording this session now; delete it again once the recording has stopped"
            logger.notice("the coordinator asked to forget \(sessionID), which is recording: kept")
        } else {
            do {
                if let freed = try SegmentSpool(root: options.spoolDirectory).remove(session: sessionID) {
                    answer.freedBytes = UInt64(freed)
                    logger.notice("forgot session \(sessionID) at the coordinator's request: removed its spool, \(freed) bytes")
                } else {
                    logger.info("the coordinator asked to forget \(sessionID), of which this agent holds nothing")
                }
            } catch {
                answer.reason = WireSentences.fitted(["its spool could not be removed: \(error)"])[0]
                logger.error("cannot forget session \(sessionID): \(error)")
            }
        }
        do {
            try c.connection.send(.sessionForgotten(answer))
        } catch {
            logger.warning("SessionForgotten for \(sessionID) not sent: \(error)")
        }
    }
}
