import NIOCore

extension SocketAddress {
    /// The interface index of an IPv6 address (its `%eth0`), which a link-local address
    /// (fe80::/10) needs to be reached by a socket of our own; 0 for any other address.
    public var ipv6ScopeID: UInt32 {
        if case .v6(let address) = self { return address.address.sin6_scope_id }
        return 0
    }
}
