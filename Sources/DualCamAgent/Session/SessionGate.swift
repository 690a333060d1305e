/// Lets one coordinator session run at a time (there is one camera), while pairing
/// connections and handshakes proceed beside it. Waiters are served in arrival order.
actor SessionGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private(set) var stopping = false

    func acquire() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }

    func stop() { stopping = true }
}
