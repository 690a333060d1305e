/// The ForgetSession requests of one connection that SessionForgotten has not answered
/// yet (§17), kept alike on both sides: each answer must match a request, a session is
/// never asked twice at once, and a peer cannot grow the list without bound.
struct ForgetRequests: Sendable {
    /// More than a coordinator deleting sessions one by one ever has outstanding.
    static let maxOutstanding = 64

    private var asked: Set<String> = []

    /// Notes a ForgetSession; refused for the session the connection is preparing,
    /// recording or stopping (its spool is in use), and for one asked already.
    mutating func ask(_ request: Dualcam_V1_ForgetSession, phase: SessionPhase) throws(ProtocolError) {
        let id = request.sessionID
        try MessageValidation.checkSessionID(id)
        guard phase.sessionID != id else {
            throw ProtocolError(.badState, "ForgetSession for \(id) while \(phase.name) it; a session is forgotten only once it ended")
        }
        guard !asked.contains(id) else {
            throw ProtocolError(.badState, "ForgetSession for \(id), which is asked already and not answered")
        }
        guard asked.count < Self.maxOutstanding else {
            throw ProtocolError(.flowControl, "more than \(Self.maxOutstanding) ForgetSession requests unanswered")
        }
        asked.insert(id)
    }

    /// Notes a SessionForgotten; refused when it answers no request.
    mutating func answer(_ answer: Dualcam_V1_SessionForgotten) throws(ProtocolError) {
        try MessageValidation.checkSessionForgotten(answer)
        guard asked.remove(answer.sessionID) != nil else {
            throw ProtocolError(.badState, "SessionForgotten for \(answer.sessionID), which no ForgetSession asked for")
        }
    }
}
