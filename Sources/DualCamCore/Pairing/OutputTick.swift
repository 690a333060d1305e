/// What one stream contributes to one output tick of the composite.
public enum TickSource<Payload> {
    /// A fresh frame, `errorNanoseconds` = its presentation time minus the tick's.
    case frame(Payload, errorNanoseconds: Int64)
    /// No frame near this tick: the stream's last frame is shown again.
    case repeated(Payload)
    /// Nothing to show: the stream never started, ended, or has been silent too long.
    case noSignal
}

extension TickSource: Sendable where Payload: Sendable {}

/// One constant-rate output frame of the composite: tick `index` is at presentation time
/// `rate.instant(ofFrame: index)`.
public struct OutputTick<Payload> {
    public let index: Int64
    public let presentationNanoseconds: Int64
    public let streams: [TickSource<Payload>]
}

extension OutputTick: Sendable where Payload: Sendable {}
