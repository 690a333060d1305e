/// What the `p` key (and the studio's P) does, in every layout: in `pip` it moves the
/// window to the next position; elsewhere it steps the framing through fill from the
/// top, fill centred, fill from the bottom and fit. A step that would draw the very same
/// picture (an anchor when the crop is at the sides, fit when the camera already has its
/// slot's shape) is skipped, so a press always changes what is recorded or says why not.
extension LayoutSpec {
    /// The spec after one press, for `streamCount` cameras of `sourceWidth x sourceHeight`
    /// composed at `outputWidth x outputHeight`. Throws, with what `p` does and why it
    /// cannot here, when no step changes the picture.
    public func nextPlacement(outputWidth: Int, outputHeight: Int, sourceWidth: Int, sourceHeight: Int,
                              streamCount: Int) throws(LayoutError) -> LayoutSpec {
        func picture(_ spec: LayoutSpec) -> [PlacedPicture] {
            LayoutGeometry.slots(for: spec, outputWidth: outputWidth, outputHeight: outputHeight, streamCount: streamCount)
                .map { PlacedPicture(stream: $0.stream, isInset: $0.isInset,
                                     placement: LayoutGeometry.placement(of: $0, sourceWidth: sourceWidth, sourceHeight: sourceHeight)) }
        }
        let steps = placementSteps
        let now = picture(self)
        let current = steps.firstIndex { picture($0) == now } ?? steps.count - 1
        for offset in 1...steps.count {
            let look = picture(steps[(current + offset) % steps.count])
            guard look != now else { continue }
            // Of the steps that draw it, the one naming the fewest choices (an anchor on a
            // side crop changes nothing and is not worth writing down).
            return steps.filter { picture($0) == look }.min { $0.choiceCount < $1.choiceCount }!
        }
        throw LayoutError(kind == .pip
            ? "p moves the picture-in-picture window, and here there is none to move (one camera, or too many windows for a row, so the cameras are in a grid)"
            : "p changes how the pictures meet their slots (fill from the top, centre or bottom, or fit), and in \(kind.rawValue) with these cameras each choice draws the same picture")
    }

    /// The cycle `p` walks, each step spelt with nil where it is the kind's own, so that
    /// stepping back to a default writes the plain name again.
    var placementSteps: [LayoutSpec] {
        if kind == .pip {
            return PiPPosition.allCases.map { position in
                var spec = self
                spec.pip.position = position
                return spec
            }
        }
        return CropAnchor.allCases.map { framed(.fill, anchor: $0) } + [framed(.fit, anchor: nil)]
    }

    /// This spec with a framing, spelt with nil where the choice is the kind's own: so
    /// `dominance` filled keeps its small pictures whole, as its name promises, and a
    /// default chosen again writes the plain name. A fitted picture is never cropped, so
    /// fit drops the anchor rather than carry one that does nothing.
    public func framed(_ fit: LayoutFit, anchor: CropAnchor?) -> LayoutSpec {
        var spec = self
        spec.fit = fit == kind.defaultFit ? nil : fit
        spec.anchor = fit == .fit || anchor == kind.defaultAnchor ? nil : anchor
        return spec
    }
}

extension LayoutSpec {
    fileprivate var choiceCount: Int { (fit == nil ? 0 : 1) + (anchor == nil ? 0 : 1) }
}

private struct PlacedPicture: Equatable {
    var stream: Int
    var isInset: Bool
    var placement: Placement
}
