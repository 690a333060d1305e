import DualCamCoordinator
import DualCamCore

extension Studio {
    /// The layout a take ends with is the next take's starting layout: an operator who
    /// chose Side by side while recording saw the program view fall back to the plan's
    /// PiP once the take was over. Runs for as long as the studio does.
    func carryLayoutBetweenTakes() async {
        var last: LayoutSpec?
        var carried = true
        for await snapshot in rig.snapshots() {
            guard let take = snapshot.take else { continue }
            if !take.isOver {
                last = try? LayoutSpec(parsing: take.layout)
                carried = false
            } else if !carried, let layout = last {
                carried = true
                let changed = plan.withLockedValue { plan -> Bool in
                    guard plan.base.layout != layout else { return false }
                    plan.base.layout = layout
                    return true
                }
                if changed { planChanged() }
            }
        }
    }
}
