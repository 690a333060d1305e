/// The rig's one record of each agent's link: connection, clock, health and what the node
/// said it can do. The rig writes it as links come and go; a take reads it through the
/// rig's indices (to send, to fit the take to the cameras) and keeps no copy of it.
///
/// Not Sendable: used on the rig's event loop only. A take being finished (off the loop)
/// must not read it; everything the files need is the take's own (`AgentTracker`).
final class RigMembers: MutableCollection, RandomAccessCollection {
    private var all: [Rig.Member]

    init(_ members: [Rig.Member]) { all = members }

    var startIndex: Int { all.startIndex }
    var endIndex: Int { all.endIndex }

    subscript(position: Int) -> Rig.Member {
        get { all[position] }
        set { all[position] = newValue }
    }
}
