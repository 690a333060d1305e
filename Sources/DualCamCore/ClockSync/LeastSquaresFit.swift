/// The classic alternative to `EnvelopeFit`: keep the lowest-delay fraction of the window
/// (a delay quantile, as RFC 5905's clock filter keeps the minimum-delay sample) and fit
/// offset and rate by least squares, weighting each sample by how close its round trip is
/// to the window's minimum. Kept for comparison; see `ClockEstimator.Configuration.Fit`.
enum LeastSquaresFit {
    static func fit(_ observations: [ClockObservation], reference: Int64, base: Int64,
                    quantile: Double, minimumUsed: Int, noiseFloor: Double, ratePriorSigma: Double,
                    rateSigmas: Double) -> LineFit {
        let delays = observations.map(\.delay).sorted()
        let minimumDelay = delays[0]
        let wanted = max(minimumUsed, Int((Double(delays.count) * quantile).rounded(.up)))
        let cutoff = delays[min(wanted, delays.count) - 1]
        let used = observations.filter { $0.delay <= cutoff }

        func weight(_ o: ClockObservation) -> Double {
            let sigma = noiseFloor + Double(o.delay &- minimumDelay) / 2
            return 1 / (sigma * sigma)
        }
        var sw = 0.0, swx = 0.0, swy = 0.0
        for o in used {
            let w = weight(o)
            sw += w
            swx += w * Double(o.midpoint &- reference)
            swy += w * o.offset(relativeTo: base)
        }
        let meanX = swx / sw, meanY = swy / sw
        var sxx = 0.0, sxy = 0.0
        for o in used {
            let w = weight(o), dx = Double(o.midpoint &- reference) - meanX
            sxx += w * dx * dx
            sxy += w * dx * (o.offset(relativeTo: base) - meanY)
        }
        // A weak prior on the rate keeps a window too short to show one well posed.
        let prior = 1 / (ratePriorSigma * ratePriorSigma)
        let rate = sxy / (sxx + prior)
        var chiSquare = 0.0
        for o in used {
            let residual = o.offset(relativeTo: base) - meanY - rate * (Double(o.midpoint &- reference) - meanX)
            chiSquare += residual * residual * weight(o)
        }
        let scale = used.count > 2 ? max(1, chiSquare / Double(used.count - 2)) : 1
        let rateUncertainty = rateSigmas * (scale / (sxx + prior)).squareRoot()
        // At the weighted centroid the line is a weighted mean of samples each within half
        // its round trip of the truth, so the largest such half bounds the error there.
        let largest = used.map(\.delay).max() ?? 0
        return LineFit(offset: meanY - rate * meanX, rate: rate,
                       bound: Double(largest) / 2 + rateUncertainty * meanX.magnitude,
                       rateUncertainty: rateUncertainty, samplesUsed: used.count)
    }
}
