import DualCamCore
import Testing

@Suite struct AudioMixerTests {
    @Test func voicesAddAtTheirPositionsWithTheirGains() {
        var mixer = AudioMixer(streamCount: 2, channels: 1, gains: [1, 0.5])
        mixer.push(stream: 0, startPosition: 0, samples: [0.1, 0.1, 0.1, 0.1], sourceChannels: 1)
        // The guest's sound starts two samples later: it must land there, not at 0.
        mixer.push(stream: 1, startPosition: 2, samples: [0.4, 0.4], sourceChannels: 1)
        let out = mixer.mix(upTo: 4)
        #expect(out.count == 4)
        #expect(abs(out[0] - 0.1) < 1e-6 && abs(out[1] - 0.1) < 1e-6)
        #expect(abs(out[2] - 0.3) < 1e-6 && abs(out[3] - 0.3) < 1e-6)
        #expect(mixer.position == 4)
    }

    @Test func aMissingCameraIsSilenceNotADelay() {
        var mixer = AudioMixer(streamCount: 2, channels: 1, gains: [1, 1])
        mixer.push(stream: 0, startPosition: 0, samples: [Float](repeating: 0.2, count: 10), sourceChannels: 1)
        #expect(mixer.deliveredPosition(awaiting: [0, 1]) == 0)
        #expect(mixer.deliveredPosition(awaiting: [0]) == 10)
        let out = mixer.mix(upTo: 10)
        #expect(out.allSatisfy { abs($0 - 0.2) < 1e-6 })
        // Late samples for positions already mixed are ignored, later ones kept.
        mixer.push(stream: 1, startPosition: 8, samples: [0.5, 0.5, 0.5, 0.5], sourceChannels: 1)
        let next = mixer.mix(upTo: 12)
        #expect(next.count == 2 && next.allSatisfy { abs($0 - 0.5) < 1e-6 })
    }

    /// A live stream interleaves sound and pictures: the mix must run as far as the
    /// sound has come, not a fixed lag behind, or the pictures wait for the next segment.
    @Test func theMixRunsAsFarAsEveryAwaitedCameraDeliveredWithinTheLag() {
        var mixer = AudioMixer(streamCount: 2, channels: 1, gains: [1, 1])
        mixer.push(stream: 0, startPosition: 0, samples: [Float](repeating: 0.1, count: 940), sourceChannels: 1)
        mixer.push(stream: 1, startPosition: 0, samples: [Float](repeating: 0.1, count: 960), sourceChannels: 1)
        // Pictures up to 1000, a lag of at most 500: the slower camera's 940 is the end.
        #expect(mixer.horizon(pictures: 1000, maxLag: 500, awaiting: [0, 1]) == 940)
        // Never past the pictures.
        #expect(mixer.horizon(pictures: 900, maxLag: 500, awaiting: [0, 1]) == 900)
        // A camera far behind holds the mix no more than the lag.
        #expect(mixer.horizon(pictures: 2000, maxLag: 500, awaiting: [0, 1]) == 1500)
        // Once the slower camera has ended, the other one alone sets it.
        #expect(mixer.horizon(pictures: 1000, maxLag: 500, awaiting: [1]) == 960)
        // Nothing awaited (no sound yet, or every camera ended): the lag.
        #expect(mixer.horizon(pictures: 1000, maxLag: 500, awaiting: []) == 500)
    }

    @Test func monoSpreadsToStereoAndSumsClip() {
        var mixer = AudioMixer(streamCount: 2, channels: 2, gains: [1, 1])
        mixer.push(stream: 0, startPosition: 0, samples: [0.8, 0.8], sourceChannels: 1)
        mixer.push(stream: 1, startPosition: 0, samples: [0.7, -0.1, 0.7, -0.1], sourceChannels: 2)
        let out = mixer.mix(upTo: 2)
        // Left: 0.8 + 0.7 clipped to full scale; right: 0.8 − 0.1.
        #expect(out.count == 4)
        #expect(out[0] == 1 && out[2] == 1)
        #expect(abs(out[1] - 0.7) < 1e-6 && abs(out[3] - 0.7) < 1e-6)
    }

    @Test func aZeroGainLeavesAVoiceOut() {
        var mixer = AudioMixer(streamCount: 2, channels: 1, gains: [0, 1])
        mixer.push(stream: 0, startPosition: 0, samples: [0.9], sourceChannels: 1)
        mixer.push(stream: 1, startPosition: 0, samples: [0.25], sourceChannels: 1)
        #expect(mixer.mix(upTo: 1) == [0.25])
    }
}
