/// Final Cut Pro 7 XML (xmeml 5), which Premiere Pro and Resolve import: one sequence,
/// one video track per camera and the combined file on the track above them, each clip at
/// its place on the session's timeline; an audio track per camera's WAV.
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
            let length = t.durationFrames
            audioTracks.append("""
                    <track>
                      <clipitem id="clipitem-\(items)">
                        <name>\(MarkupText.escaped(clip.name)) sound</name>
                        <duration>\(length)</duration>
                        \(rate)
                        <start>0</start>
                        <end>\(length)</end>
                        <in>0</in>
                        <out>\(length)</out>
                        <file id="file-\(files)">
                          <name>\(MarkupText.escaped(lastComponent(sound.path)))</name>
                          <pathurl>\(MarkupText.escaped(MarkupText.url(sound.path)))</pathurl>
                          \(rate)
                          <duration>\(length)</duration>
                          <media>
                            <audio><samplecharacteristics><depth>16</depth><samplerate>\(sound.sampleRate)</samplerate></samplecharacteristics><channelcount>\(sound.channels)</channelcount></audio>
                          </media>
                        </file>
                        <sourcetrack><mediatype>audio</mediatype><trackindex>1</trackindex></sourcetrack>
                      </clipitem>
                    </track>
            """)
        }
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE xmeml>
        <xmeml version="5">
          <sequence id="sequence-1">
            <name>\(MarkupText.escaped(t.name))</name>
            <duration>\(t.durationFrames)</duration>
            \(rate)
            \(timecodeElement(t.start, t))
            <media>
              <video>
                <format><samplecharacteristics>\(rate)<width>\(t.width)</width><height>\(t.height)</height></samplecharacteristics></format>
        \(videoTracks.joined(separator: "\n"))
              </video>
              <audio>
        \(audioTracks.joined(separator: "\n"))
              </audio>
            </media>
          </sequence>
        </xmeml>

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
