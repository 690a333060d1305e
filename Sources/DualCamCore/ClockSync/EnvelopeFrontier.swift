/// The exchanges that can still shape an `EnvelopeFit`, kept as they arrive.
///
/// A reading is useless for as long as a *newer* one in the same direction beats it for
/// every rate in `rates` (lower outbound, or higher return, by more than any such rate
/// could make up over the time between them): the newer one stays in the window at least
/// as long. Dropping such readings on arrival leaves a short staircase per direction, so a
/// window of hundreds of exchanges costs a fit of a dozen points.
struct EnvelopeFrontier: Sendable {
    /// The rates the fit may choose from. All of ±`maximumRate` at first; once locked,
    /// the estimator narrows it around the fitted rate, which is what keeps the staircase
    /// short at slow polling (a change beyond it shows up as a step).
    var rates: ClosedRange<Double>
    /// Outbound survivors, oldest first.
    private(set) var forward: [ClockObservation] = []
    /// Return survivors, oldest first.
    private(set) var backward: [ClockObservation] = []

    init(maximumRate: Double) {
        rates = -maximumRate...maximumRate
    }

    /// Whether reading `a` (value `ya` at local `xa`) lies below `b` by more than every
    /// rate in `rates` can make up between them.
    private func lies(_ ya: Int64, at xa: Int64, below yb: Int64, at xb: Int64) -> Bool {
        let centre = (rates.lowerBound + rates.upperBound) / 2
        let halfWidth = (rates.upperBound - rates.lowerBound) / 2
        let dx = Double(xa &- xb)
        return Double(yb &- ya) + centre * dx >= halfWidth * dx.magnitude
    }

    mutating func append(_ o: ClockObservation) {
        while let last = forward.last, lies(o.forward, at: o.t1, below: last.forward, at: last.t1) {
            forward.removeLast()
        }
        forward.append(o)
        while let last = backward.last, lies(last.backward, at: last.t4, below: o.backward, at: o.t4) {
            backward.removeLast()
        }
        backward.append(o)
    }

    /// Forgets exchanges whose midpoint is before `midpoint`.
    mutating func removeOlder(than midpoint: Int64) {
        forward.removeFirst(forward.firstIndex { $0.midpoint >= midpoint } ?? forward.count)
        backward.removeFirst(backward.firstIndex { $0.midpoint >= midpoint } ?? backward.count)
    }

    mutating func removeAll(maximumRate: Double) {
        forward.removeAll()
        backward.removeAll()
        rates = -maximumRate...maximumRate
    }
}
