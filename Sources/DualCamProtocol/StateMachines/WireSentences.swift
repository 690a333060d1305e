/// Sentences an agent gives for the operator (Ready warnings, RecordingFinished notes): a
/// few, of a readable length. What they hold is shown through `WireIdentifier.printable`,
/// never as it came.
public enum WireSentences {
    public static let maxCount = 16
    public static let maxBytes = 1_024

    /// What a sender may put on the wire of `sentences`: the first few, each cut at a
    /// character boundary to fit.
    public static func fitted(_ sentences: [String]) -> [String] {
        sentences.prefix(maxCount).map { sentence in
            var bytes = 0
            return String(sentence.prefix { character in
                bytes += character.utf8.count
                return bytes <= maxBytes
            })
        }
    }
}
