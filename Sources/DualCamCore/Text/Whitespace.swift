extension StringProtocol {
    /// Without leading and trailing white space: what Foundation's trimming does, for a
    /// core that imports nothing beyond the standard library.
    var trimmingWhitespace: String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return String(s)
    }
}
