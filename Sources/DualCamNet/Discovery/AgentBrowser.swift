import CAvahi
import Foundation
import Synchronization

/// Browses `_dualcam._tcp` through avahi-daemon, resolves every instance, and reports
/// agents as they appear, change and leave.
public final class AgentBrowser: @unchecked Sendable {
    // Invariant: everything below except `continuation` is touched only on the poll
    // thread (callbacks) or under the poll lock; `deinit` stops that thread first.
    // `continuation` is Sendable itself.
    private var connection: AvahiConnection?
    private var browser: OpaquePointer?
    private var resolvers: [InstanceKey: OpaquePointer] = [:]
    private var instances: [InstanceKey: Resolved] = [:]
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation
    private var failed = false

    struct InstanceKey: Hashable {
        var name: String
        var interface: Int32
        var proto: Int32
    }

    struct Resolved {
        var advertisement: AgentAdvertisement
        var hostName: String
        var port: Int
        var address: String
        var loopback: Bool
        var ipv4: Bool
    }

    /// Starts browsing; the stream ends when the browser is released. Throws when
    /// avahi-daemon cannot be reached (the error says how to start it).
    public static func browse() throws -> (AgentBrowser, AsyncStream<DiscoveryEvent>) {
        let (stream, continuation) = AsyncStream.makeStream(of: DiscoveryEvent.self)
        let browser = try AgentBrowser(continuation: continuation)
        return (browser, stream)
    }

    /// Browses for `seconds` and returns every agent resolved by then; with `enough`, as
    /// soon as what was found satisfies it (and a moment more, for the other addresses of
    /// the agents found): a start that knows whom it waits for need not wait the rest.
    public static func snapshot(seconds: Double, enough: (@Sendable ([DiscoveredAgent]) -> Bool)? = nil) async throws -> [DiscoveredAgent] {
        let (browser, stream) = try browse()
        let satisfied = Mutex(false)
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let collector = Task {
            var found: [String: DiscoveredAgent] = [:]
            for await event in stream {
                switch event {
                case .updated(let agent): found[agent.instanceName] = agent
                case .removed(let name): found[name] = nil
                case .failed(let error): throw error
                }
                if let enough, enough(Array(found.values)) { satisfied.withLock { $0 = true } }
            }
            return found
        }
        while ContinuousClock.now < deadline && !satisfied.withLock({ $0 }) {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if satisfied.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(300)) }
        browser.finish()
        let result = try await collector.value
        return result.values.sorted { $0.instanceName < $1.instanceName }
    }

    private init(continuation: AsyncStream<DiscoveryEvent>.Continuation) throws {
        self.continuation = continuation
        let context = "browsing for \(AgentAdvertisement.serviceType) through Avahi"
        let connection = try AvahiConnection(context: context) { [continuation] state in
            if state == AVAHI_CLIENT_FAILURE {
                continuation.yield(.failed(AvahiError(Int32(AVAHI_ERR_DISCONNECTED), "browsing through Avahi")))
            }
        }
        self.connection = connection
        try connection.withLock {
            browser = avahi_service_browser_new(
                connection.client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC),
                AgentAdvertisement.serviceType, nil, AvahiLookupFlags(rawValue: 0),
                { _, interface, proto, event, name, _, domain, _, userdata in
                    guard let userdata else { return }
                    Unmanaged<AgentBrowser>.fromOpaque(userdata).takeUnretainedValue()
                        .browsed(interface: interface, proto: proto, event: event, name: name, domain: domain)
                }, Unmanaged.passUnretained(self).toOpaque())
            guard browser != nil else { throw AvahiError(connection.lastError, context) }
        }
        try connection.start(context: context)
    }

    /// Ends the stream and stops browsing. Never call it from a stream consumer that the
    /// poll thread could be blocked on; it waits for that thread to stop.
    public func finish() {
        connection?.withLock { freeObjects() }
        continuation.finish()
    }

    // MARK: - Callbacks (poll thread)

    private func browsed(interface: AvahiIfIndex, proto: AvahiProtocol, event: AvahiBrowserEvent,
                         name: UnsafePointer<CChar>?, domain: UnsafePointer<CChar>?) {
        guard let connection, browser != nil else { return }
        switch event {
        case AVAHI_BROWSER_NEW:
            guard let name else { return }
            let key = InstanceKey(name: String(cString: name), interface: interface, proto: proto)
            guard resolvers[key] == nil else { return }
            let resolver = avahi_service_resolver_new(
                // The address of the protocol the service was seen on: resolving any
                // address gave the IPv6 link-local one for both, so an agent listening on
                // IPv4 alone was unreachable through mDNS.
                connection.client, interface, proto, name, AgentAdvertisement.serviceType, domain,
                proto, AvahiLookupFlags(rawValue: 0),
                { _, interface, proto, event, name, _, _, host, address, port, txt, _, userdata in
                    guard let userdata else { return }
                    Unmanaged<AgentBrowser>.fromOpaque(userdata).takeUnretainedValue().resolved(
                        interface: interface, proto: proto, event: event, name: name, host: host,
                        address: address, port: port, txt: txt)
                }, Unmanaged.passUnretained(self).toOpaque())
            if let resolver { resolvers[key] = resolver }
        case AVAHI_BROWSER_REMOVE:
            guard let name else { return }
            let instance = String(cString: name)
            let key = InstanceKey(name: instance, interface: interface, proto: proto)
            if let resolver = resolvers.removeValue(forKey: key) { avahi_service_resolver_free(resolver) }
            instances[key] = nil
            report(instance)
        case AVAHI_BROWSER_FAILURE:
            failed = true
            continuation.yield(.failed(AvahiError(connection.lastError, "browsing for \(AgentAdvertisement.serviceType)")))
        default:
            break  // ALL_FOR_NOW, CACHE_EXHAUSTED: nothing to report
        }
    }

    private func resolved(interface: AvahiIfIndex, proto: AvahiProtocol, event: AvahiResolverEvent,
                          name: UnsafePointer<CChar>?, host: UnsafePointer<CChar>?, address: UnsafePointer<AvahiAddress>?,
                          port: UInt16, txt: UnsafeMutablePointer<AvahiStringList>?) {
        guard let name else { return }
        let instance = String(cString: name)
        let key = InstanceKey(name: instance, interface: interface, proto: proto)
        // A resolver kept alive reports every later change of the record (the TXT flag of
        // an opened pairing window, a new address); it goes when the instance does. One
        // that failed is dropped, and the next browse event for the instance makes another.
        guard event == AVAHI_RESOLVER_FOUND, let address else {
            if let resolver = resolvers.removeValue(forKey: key) { avahi_service_resolver_free(resolver) }
            return
        }
        var records: [String] = []
        var item = txt
        while let entry = item {
            let bytes = UnsafeRawPointer(avahi_string_list_get_text(entry))
            let length = Int(avahi_string_list_get_size(entry))
            if let bytes { records.append(String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)) }
            item = avahi_string_list_get_next(entry)
        }
        guard let advertisement = AgentAdvertisement(txtRecords: records) else { return }
        var text = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
        avahi_address_snprint(&text, text.count, address)
        var printed = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let ipv4 = address.pointee.proto == AvahiProtocol(AVAHI_PROTO_INET)
        // A link-local IPv6 address needs its interface to be reachable.
        if !ipv4, printed.lowercased().hasPrefix("fe80:"), let ifName = Self.interfaceName(interface) {
            printed += "%" + ifName
        }
        let loopback = printed == "127.0.0.1" || printed == "::1"
        instances[key] = Resolved(advertisement: advertisement, hostName: host.map { String(cString: $0) } ?? "",
                                  port: Int(port), address: printed, loopback: loopback, ipv4: ipv4)
        report(instance)
    }

    /// Reports the merged view of one agent across its interfaces and protocols.
    private func report(_ instance: String) {
        let found = instances.filter { $0.key.name == instance }.map(\.value)
            .sorted { a, b in
                if a.loopback != b.loopback { return a.loopback }
                if a.ipv4 != b.ipv4 { return a.ipv4 }
                return a.address < b.address
            }
        guard let first = found.first else {
            continuation.yield(.removed(instanceName: instance))
            return
        }
        var addresses: [String] = []
        for r in found where !addresses.contains(r.address) { addresses.append(r.address) }
        continuation.yield(.updated(DiscoveredAgent(instanceName: instance, advertisement: first.advertisement,
                                                    hostName: first.hostName, port: first.port, addresses: addresses)))
    }

    private static func interfaceName(_ index: AvahiIfIndex) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(UInt32(bitPattern: index), &buffer) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func freeObjects() {
        for resolver in resolvers.values { avahi_service_resolver_free(resolver) }
        resolvers.removeAll()
        if let browser { avahi_service_browser_free(browser) }
        browser = nil
    }

    deinit {
        connection?.stop()
        freeObjects()
        connection = nil
        continuation.finish()
    }
}
