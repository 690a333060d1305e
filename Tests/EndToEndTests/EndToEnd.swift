import Testing

/// Every end-to-end test runs real-time agents. `deploy/test.sh` runs those whose point is
/// the CPU (an encoder budget, every frame of 640x360 or more on two or more cameras, the
/// phase lock's figures, vivid in its emulated guest) alone, one at a time, and the rest
/// (320x240 and smaller, or no recording at all) two at a time: their time is mostly
/// waiting on real timers (cable cuts, reconnect graces, restarts), and two of them use
/// about a core together.
@Suite enum EndToEnd {}
