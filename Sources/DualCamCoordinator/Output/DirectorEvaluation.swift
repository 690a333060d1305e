import DualCamCore
import DualCamMedia
import Foundation

/// The director run over a scripted conversation (tools/conversation: one WAV per node
/// and `truth.json`, who speaks when) and scored against the truth: what the director's
/// system test asserts and `dualcam-bench director` prints.
public struct DirectorEvaluation: Sendable {
    public var score: DirectorScore
    public var cuts: [DirectorCut]
    /// CPU seconds the analysis took per second of sound per camera.
    public var costPerCamera: Double
    public var seconds: Double

    struct Truth: Decodable {
        struct Person: Decodable { var name: String; var file: String }
        struct Span: Decodable { var person: String; var start: Double; var end: Double }
        var people: [Person]
        var turns: [Span]
        /// Coughs, back-channels and laughter.
        var events: [Span]?
        var durationSeconds: Double
    }

    /// Runs the director over the conversation in `folder`, feeding it in pieces as the
    /// composite does.
    public static func run(folder: String, tuning: DirectorTuning = DirectorTuning()) throws -> DirectorEvaluation {
        let truth: Truth
        do {
            truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/truth.json")))
        } catch {
            throw CoordinatorError("\(folder)/truth.json: \(error) (make one with tools/conversation/make-conversation.py)")
        }
        // 48 kHz mono, as the director hears a node (it averages a stereo node the same way).
        let rate = 48000
        let mics = try truth.people.map { person -> [Float] in
            let reader = try SoundFileReader(path: folder + "/" + person.file, sampleRate: rate, channels: 1)
            var samples: [Float] = []
            while true {
                let chunk = try reader.read(frames: rate)
                if chunk.isEmpty { break }
                samples += chunk
                if samples.count >= Int(truth.durationSeconds * Double(rate)) + rate { break }
            }
            return samples
        }
        let index = Dictionary(uniqueKeysWithValues: truth.people.enumerated().map { ($0.element.name, $0.offset) })
        func spans(_ list: [Truth.Span]) -> [DirectorScore.Turn] {
            list.compactMap { s in index[s.person].map { DirectorScore.Turn(person: $0, start: s.start, end: s.end) } }
        }

        var director = Director(people: mics.count, sampleRate: rate, tuning: tuning)
        var cuts: [DirectorCut] = []
        let length = mics.map(\.count).min() ?? 0
        let piece = rate / 25
        let started = CPUShare.processNanoseconds()
        var at = 0
        while at < length {
            let end = min(at + piece, length)
            for (stream, mic) in mics.enumerated() {
                director.push(stream: stream, startPosition: Int64(at), samples: Array(mic[at..<end]), channels: 1)
            }
            cuts += director.advance(to: Int64(end))
            at = end
        }
        let cpu = Double(CPUShare.processNanoseconds() - started) / 1e9
        let seconds = Double(length) / Double(rate)
        let score = DirectorScore(cuts: cuts, turns: spans(truth.turns), nonTurns: spans(truth.events ?? []),
                                  switchDelay: tuning.switchDelay, length: seconds)
        return DirectorEvaluation(score: score, cuts: cuts, costPerCamera: cpu / seconds / Double(mics.count), seconds: seconds)
    }
}
