import Testing

/// Every end-to-end test runs real-time agents; one at a time, so that none of them
/// steals the CPU another one's cameras need.
@Suite(.serialized) enum EndToEnd {}
