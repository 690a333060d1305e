/// Final Cut Pro 7 XML (xmeml 5), which Premiere Pro and Resolve import: one sequence,
/// one video track per camera and the combined file on the track above them, each clip at
/// its place on the session's timeline; an audio track per camera's WAV and per import.
public enum XMEMLWriter {
    public static func text(_ timeline: EditTimeline) -> String {
        let t = timeline
        let rate = rateElement(t)
        var files = 0
        var items = 0
        var videoTracks: [String] = []
        var soundIDs: [Int: String] = [:]
        for clip in t.cameras + [t.combined] {
            files += 1
            items += 1
            videoTracks.append("""
                    <track>
                      <clipitem id="clipitem-\(items)">
                        <name>\(MarkupText.escaped(clip.name))</name>
                        <duration>\(clip.durationFrames)</duration>
                        \(rate)
                        <start>\(clip.startFrame)</start>
                        <end>\(clip.endFrame)</end>
                        <in>0</in>
                        <out>\(clip.durationFrames)</out>
                        <file id="file-\(files)">
                          <name>\(MarkupText.escaped(lastComponent(clip.path)))</name>
                          <pathurl>\(MarkupText.escaped(MarkupText.url(clip.path)))</pathurl>
                          \(rate)
                          <duration>\(clip.durationFrames)</duration>
                          \(timecodeElement(clip.sourceStart, t))
                          <media>
                            <video><samplecharacteristics>\(rate)<width>\(t.width)</width><height>\(t.height)</height></samplecharacteristics></video>\(clip.hasAudio ? "\n                <audio><channelcount>\(clip.sound?.channels ?? 2)</channelcount></audio>" : "")
                          </media>
                        </file>
                      </clipitem>
                    </track>
            """)
        }
        var audioTracks: [String] = []
        for clip in t.cameras {
            guard let sound = clip.sound else { continue }
            files += 1
            items += 1
            soundIDs[items] = clip.name
            audioTracks.append(audioTrack(name: clip.name + " sound", sound: sound, length: t.durationFrames, depth: 16,
                                          timecode: "", item: items, file: files, t: t))
        }
        for imported in t.imports {
            files += 1
            items += 1
            // A Broadcast Wave from T0: its timecode is the timeline's start.
            audioTracks.append(audioTrack(name: imported.name, sound: imported.sound, length: imported.durationFrames, depth: 24,
                                          timecode: "\n                  " + timecodeElement(t.start, t), item: items, file: files, t: t))
        }
        let programme = programmeSequence(t, files: &files, items: &items)
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE xmeml>
        <xmeml version="5">
        \(sequenceOpening(t, id: 1, name: t.name))
        \(videoTracks.joined(separator: "\n"))
              </video>
              <audio>
        \(audioTracks.joined(separator: "\n"))
              </audio>
            </media>
          </sequence>
        \(programme)</xmeml>

        """
    }

    private static func audioTrack(name: String, sound: EditTimeline.Sound, length: Int64, depth: Int, timecode: String,
                                   item: Int, file: Int, t: EditTimeline) -> String {
        let rate = rateElement(t)
        return """
                <track>
                  <clipitem id="clipitem-\(item)">
                    <name>\(MarkupText.escaped(name))</name>
                    <duration>\(length)</duration>
                    \(rate)
                    <start>0</start>
                    <end>\(length)</end>
                    <in>0</in>
                    <out>\(length)</out>
                    <file id="file-\(file)">
                      <name>\(MarkupText.escaped(lastComponent(sound.path)))</name>
                      <pathurl>\(MarkupText.escaped(MarkupText.url(sound.path)))</pathurl>
                      \(rate)
                      <duration>\(length)</duration>\(timecode)
                      <media>
                        <audio><samplecharacteristics><depth>\(depth)</depth><samplerate>\(sound.sampleRate)</samplerate></samplecharacteristics><channelcount>\(sound.channels)</channelcount></audio>
                      </media>
                    </file>
                    <sourcetrack><mediatype>audio</mediatype><trackindex>1</trackindex></sourcetrack>
                  </clipitem>
                </track>
        """
    }

    /// The director's cut as a sequence of its own: one video track, a clip item per shot
    /// from the camera it shows (files 1…N, defined in the first sequence) or the composite.
    private static func programmeSequence(_ t: EditTimeline, files: inout Int, items: inout Int) -> String {
        guard !t.programme.isEmpty else { return "" }
        let rate = rateElement(t)
        var compositeFile: Int?
        var clips: [String] = []
        for shot in t.programme {
            let (clip, from) = t.source(of: shot)
            let fileElement: String
            if let i = t.cameras.firstIndex(where: { $0.path == clip.path }) {
                fileElement = "<file id=\"file-\(i + 1)\"/>"
            } else if clip.path == t.combined.path {
                fileElement = "<file id=\"file-\(t.cameras.count + 1)\"/>"
            } else if let id = compositeFile {
                fileElement = "<file id=\"file-\(id)\"/>"
            } else {
                files += 1
                compositeFile = files
                fileElement = """
                <file id="file-\(files)"><name>\(MarkupText.escaped(lastComponent(clip.path)))</name><pathurl>\(MarkupText.escaped(MarkupText.url(clip.path)))</pathurl>\(rate)<duration>\(clip.durationFrames)</duration>\(timecodeElement(clip.sourceStart, t))<media><video><samplecharacteristics>\(rate)<width>\(t.width)</width><height>\(t.height)</height></samplecharacteristics></video></media></file>
                """
            }
            items += 1
            let inFrame = from - clip.sourceStart.frames
            clips.append("""
                      <clipitem id="clipitem-\(items)">
                        <name>\(MarkupText.escaped(t.programmeName(shot)))</name>
                        <duration>\(clip.durationFrames)</duration>
                        \(rate)
                        <start>\(shot.startFrame)</start>
                        <end>\(shot.endFrame)</end>
                        <in>\(inFrame)</in>
                        <out>\(inFrame + shot.durationFrames)</out>
                        \(fileElement)
                      </clipitem>
            """)
        }
        return """
        \(sequenceOpening(t, id: 2, name: t.name + " Programme"))
                <track>
        \(clips.joined(separator: "\n"))
                </track>
              </video>
            </media>
          </sequence>

        """
    }

    /// A sequence up to its first video track: name, length, rate, timecode and format.
    private static func sequenceOpening(_ t: EditTimeline, id: Int, name: String) -> String {
        let rate = rateElement(t)
        return """
          <sequence id="sequence-\(id)">
            <name>\(MarkupText.escaped(name))</name>
            <duration>\(t.durationFrames)</duration>
            \(rate)
            \(timecodeElement(t.start, t))
            <media>
              <video>
                <format><samplecharacteristics>\(rate)<width>\(t.width)</width><height>\(t.height)</height></samplecharacteristics></format>
        """
    }

    static func rateElement(_ t: EditTimeline) -> String {
        let base = t.timebase
        return "<rate><timebase>\(base.base)</timebase><ntsc>\(base.ntsc ? "TRUE" : "FALSE")</ntsc></rate>"
    }

    static func timecodeElement(_ tc: SMPTETimecode, _ t: EditTimeline) -> String {
        "<timecode>\(rateElement(t))<string>\(tc)</string><frame>\(tc.frames)</frame><displayformat>\(tc.dropFrame ? "DF" : "NDF")</displayformat></timecode>"
    }

    static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
