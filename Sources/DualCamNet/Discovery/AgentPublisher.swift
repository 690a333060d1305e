import CAvahi
import Foundation
import Logging

/// Publishes an agent as `_dualcam._tcp` through avahi-daemon for as long as it lives.
/// A name already taken on the link is replaced by avahi's alternative ("name #2").
public final class AgentPublisher: @unchecked Sendable {
    // Invariant: `group`, `instanceName` and the C objects are touched only on the poll
    // thread or under the poll lock (see AvahiConnection); `deinit` stops that thread first.
    private var connection: AvahiConnection?
    private var group: OpaquePointer?
    private var instanceName: String
    private var advertisement: AgentAdvertisement
    private let port: UInt16
    private let interface: Int32
    private let proto: AvahiProtocol
    private let logger: Logger

    /// Which addresses the agent is announced with: those it listens on. A browser
    /// resolving the service over IPv6 gets the host's IPv6 address, which an agent
    /// listening on an IPv4 address alone would refuse.
    public enum Family: Sendable {
        case any, ipv4, ipv6

        /// The family a listener on `host` answers on.
        public init(listeningOn host: String) {
            // "::" listens on both families (IPv4-mapped); a link-local literal may carry
            // a zone ("fe80::1%eth0"), which inet_pton does not take.
            let literal = host.split(separator: "%", maxSplits: 1).first.map(String.init) ?? host
            var address = in6_addr()
            if host == "::" || host.isEmpty {
                self = .any
            } else if inet_pton(AF_INET6, literal, &address) == 1 {
                self = .ipv6
            } else if inet_pton(AF_INET, literal, &address) == 1 {
                self = .ipv4
            } else {
                self = .any  // a name: whatever it resolves to
            }
        }
    }

    /// Publishes now; throws when avahi-daemon cannot be reached or refuses the service.
    /// `interfaceName` limits the announcement to one interface (the demo announces on
    /// `lo`, where its agents listen); nil announces on every interface.
    public init(advertisement: AgentAdvertisement, port: Int, interfaceName: String? = nil, family: Family = .any,
                logger: Logger) throws {
        self.advertisement = advertisement
        switch family {
        case .any: proto = AvahiProtocol(AVAHI_PROTO_UNSPEC)
        case .ipv4: proto = AvahiProtocol(AVAHI_PROTO_INET)
        case .ipv6: proto = AvahiProtocol(AVAHI_PROTO_INET6)
        }
        self.instanceName = advertisement.name.isEmpty ? "dualcam-agent" : advertisement.name
        self.port = UInt16(clamping: port)
        self.logger = logger
        if let interfaceName {
            let index = if_nametoindex(interfaceName)
            guard index != 0 else {
                throw AvahiError(Int32(AVAHI_ERR_INVALID_INTERFACE), "publishing on \(interfaceName): no such network interface")
            }
            interface = Int32(index)
        } else {
            interface = Int32(AVAHI_IF_UNSPEC)
        }
        let context = "publishing \(AgentAdvertisement.serviceType) through Avahi"
        let connection = try AvahiConnection(context: context) { [logger] state in
            if state == AVAHI_CLIENT_FAILURE {
                logger.warning("Avahi connection failed; this agent is no longer announced (reachable by address still)")
            }
        }
        self.connection = connection
        try connection.withLock { try addService(context: context) }
        try connection.start(context: context)
    }

    /// Changes what the TXT record says (e.g. the pairing window opened) without
    /// withdrawing the service.
    public func update(pairingOpen: Bool) {
        connection?.withLock {
            guard advertisement.pairingOpen != pairingOpen else { return }
            advertisement.pairingOpen = pairingOpen
            republishTXT()
        }
    }

    /// Says in the TXT record why the camera cannot record (nil: it can), so that a
    /// coordinator looking for agents sees it before it connects.
    public func update(sourceProblem: String?) {
        connection?.withLock {
            guard advertisement.sourceProblem != sourceProblem else { return }
            advertisement.sourceProblem = sourceProblem
            republishTXT()
        }
    }

    /// Under the poll lock.
    private func republishTXT() {
        guard let group else { return }
        let txt = makeTXT()
        defer { avahi_string_list_free(txt) }
        let result = dc_avahi_update_txt_on(group, interface, proto, instanceName, AgentAdvertisement.serviceType, txt)
        if result < 0 { logger.warning("\(AvahiError(result, "updating the TXT record of \(instanceName)"))") }
    }

    /// The instance name in use (it changes if another node had taken it).
    public var publishedName: String { connection?.withLock { instanceName } ?? instanceName }

    /// Creates the entry group and commits the service. On the poll thread or under its lock.
    private func addService(context: String) throws {
        guard let connection else { return }
        if group == nil {
            group = avahi_entry_group_new(connection.client, { _, state, userdata in
                guard let userdata else { return }
                Unmanaged<AgentPublisher>.fromOpaque(userdata).takeUnretainedValue().groupStateChanged(state)
            }, Unmanaged.passUnretained(self).toOpaque())
            guard group != nil else { throw AvahiError(connection.lastError, context) }
        }
        let txt = makeTXT()
        defer { avahi_string_list_free(txt) }
        var result = dc_avahi_add_service_on(group, interface, proto, instanceName, AgentAdvertisement.serviceType, port, txt)
        if result == Int32(AVAHI_ERR_COLLISION) {
            renameAfterCollision()
            result = dc_avahi_add_service_on(group, interface, proto, instanceName, AgentAdvertisement.serviceType, port, txt)
        }
        guard result >= 0 else { throw AvahiError(result, "\(context) as \"\(instanceName)\"") }
        let committed = avahi_entry_group_commit(group)
        guard committed >= 0 else { throw AvahiError(committed, "\(context): commit") }
    }

    /// The TXT strings as avahi's list; the caller frees it.
    private func makeTXT() -> UnsafeMutablePointer<AvahiStringList>? {
        var txt: UnsafeMutablePointer<AvahiStringList>?
        for record in advertisement.txtRecords.reversed() { txt = avahi_string_list_add(txt, record) }
        return txt
    }

    private func renameAfterCollision() {
        guard let alternative = avahi_alternative_service_name(instanceName) else { return }
        let next = String(cString: alternative)
        avahi_free(alternative)
        logger.notice("the name \"\(instanceName)\" is taken on this network; announcing as \"\(next)\"")
        instanceName = next
    }

    /// On the poll thread.
    private func groupStateChanged(_ state: AvahiEntryGroupState) {
        switch state {
        case AVAHI_ENTRY_GROUP_COLLISION:
            renameAfterCollision()
            avahi_entry_group_reset(group)
            do { try addService(context: "re-publishing after a name collision") } catch {
                logger.warning("\(error)")
            }
        case AVAHI_ENTRY_GROUP_FAILURE:
            let code = connection.map { $0.lastError } ?? 0
            logger.warning("\(AvahiError(code, "announcing \(instanceName) through Avahi"))")
        default:
            break
        }
    }

    deinit {
        connection?.stop()
        if let group { avahi_entry_group_free(group) }
        connection = nil
    }
}
