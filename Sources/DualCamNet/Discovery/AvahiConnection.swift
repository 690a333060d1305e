import CAvahi
import Foundation

/// One avahi-client connection with the threaded poll that runs its callbacks.
///
/// avahi-client is single-threaded: every call into it happens either on the poll thread
/// (inside a callback, where the poll lock is already held) or between `lock()` and
/// `unlock()`. Objects that own browsers, resolvers or entry groups free them before this
/// connection goes away, and stop the poll thread first so that no callback can run on a
/// half-destroyed owner.
final class AvahiConnection {
    let poll: OpaquePointer
    let client: OpaquePointer
    private var running = false

    /// Connects to the daemon. `onStateChange` is called on the poll thread whenever the
    /// client's state changes (the daemon restarting or going away).
    init(context: String, onStateChange: @escaping (AvahiClientState) -> Void) throws {
        guard let poll = avahi_threaded_poll_new() else {
            throw AvahiError(Int32(AVAHI_ERR_NO_MEMORY), "\(context): cannot create the Avahi event loop")
        }
        let box = StateCallbackBox(onStateChange)
        var error: Int32 = 0
        let client = avahi_client_new(avahi_threaded_poll_get(poll), AvahiClientFlags(rawValue: 0), { _, state, userdata in
            guard let userdata else { return }
            Unmanaged<StateCallbackBox>.fromOpaque(userdata).takeUnretainedValue().callback(state)
        }, Unmanaged.passUnretained(box).toOpaque(), &error)
        guard let client else {
            avahi_threaded_poll_free(poll)
            throw AvahiError(error, context)
        }
        self.poll = poll
        self.client = client
        self.stateBox = box
    }

    /// Kept alive for as long as the client may call it.
    private let stateBox: StateCallbackBox

    /// Starts the poll thread; callbacks begin after this.
    func start(context: String) throws {
        let result = avahi_threaded_poll_start(poll)
        guard result >= 0 else { throw AvahiError(result, "\(context): cannot start the Avahi event loop") }
        running = true
    }

    func lock() { avahi_threaded_poll_lock(poll) }
    func unlock() { avahi_threaded_poll_unlock(poll) }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// The client's last error, for failures reported by a NULL return.
    var lastError: Int32 { avahi_client_errno(client) }

    /// Stops the poll thread. Must not be called from it.
    func stop() {
        if running {
            avahi_threaded_poll_stop(poll)
            running = false
        }
    }

    deinit {
        stop()
        avahi_client_free(client)
        avahi_threaded_poll_free(poll)
    }
}

private final class StateCallbackBox {
    let callback: (AvahiClientState) -> Void
    init(_ callback: @escaping (AvahiClientState) -> Void) { self.callback = callback }
}
