// Where each preview picture's time went, stage by stage, for tools/bench/studio-latency.sh
// and anyone asking why a preview stalled (docs/STUDIO.md, "Tracing the preview").
//
// The server stamps each message with the agent's index and three instants on the shared
// clock (agent sent, studio received, studio wrote); the page adds its own in
// performance.now() milliseconds: arrived, decoded, drawn. A reader maps the page's
// clock onto the shared one (the benchmark brackets performance.now() with
// CLOCK_MONOTONIC) and prints the stages. Each camera keeps its last RING records.

const RING = 3000;
const rings = new Map(); // camera -> records, oldest first

/**
 * A picture that arrived; `fate` says what became of it: 'queued' (given to the decoder),
 * 'drawn', 'waiting-key' (skipped: its decoder waits for a key frame), 'busy' (skipped:
 * the JPEG decoder was busy), 'failed'.
 */
export function arrived(frame) {
  const record = {
    agentIndex: frame.agentIndex, captureNs: frame.captureNs, agentSentNs: frame.agentSentNs,
    hubReceivedNs: frame.hubReceivedNs, writtenNs: frame.writtenNs, key: frame.key,
    arrivedMs: frame.arrivedMs, decodedMs: 0, drawnMs: 0, fate: 'queued',
  };
  let ring = rings.get(frame.camera);
  if (!ring) rings.set(frame.camera, (ring = []));
  ring.push(record);
  if (ring.length > RING) ring.splice(0, ring.length - RING);
  return record;
}

const asks = new Map(); // camera -> performance.now() of each key frame asked for

/** The page asked the server for a key frame of this camera. */
export function keyAsked(camera) {
  let list = asks.get(camera);
  if (!list) asks.set(camera, (list = []));
  list.push(performance.now());
  if (list.length > RING) list.splice(0, list.length - RING);
}

window.dualcamTrace = {
  /** When the page asked for a key frame of one camera, in [sinceMs, untilMs). */
  keyAsks: (camera, sinceMs = 0, untilMs = Infinity) =>
    (asks.get(camera) || []).filter((t) => t >= sinceMs && t < untilMs),
  /** The records of one camera that arrived in [sinceMs, untilMs) (performance.now()). */
  records: (camera, sinceMs = 0, untilMs = Infinity) =>
    (rings.get(camera) || []).filter((r) => r.arrivedMs >= sinceMs && r.arrivedMs < untilMs),
};
