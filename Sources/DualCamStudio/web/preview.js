// Preview frames from the WebSocket, decoded and drawn into each camera's canvas.
//
// A preview is for watching now, so nothing here ever queues: a JPEG that arrives while
// the previous one is still decoding is dropped, and an H.264 decoder that falls behind
// skips to the next key frame. Each decoded picture is drawn at once and let go, and
// the camera's canvas then holds the latest picture for the composite to copy from.

import * as trace from './preview-trace.js';

export const KIND_H264 = 1;
export const KIND_JPEG = 2;
const HEADER_BYTES = 16;
const TRACE_BYTES = 32;
/**
 * More H.264 chunks than this waiting in a decoder means it cannot keep up. A burst of a
 * few is normal (the page's thread was busy for a moment and the socket's messages came
 * at once) and decodes in milliseconds; skipping to a key frame over it froze the picture
 * for up to a second (tools/bench/studio-latency.sh), so only a real backlog does.
 */
const MAX_DECODE_QUEUE = 8;
/** Key frames are asked for at most this often per camera (the server's limit too). */
const KEY_ASK_INTERVAL_MS = 250;

// Read by the browser tests; drawn counts only, never frames merely received.
export const stats = { framesDrawn: {}, lastCapture: {}, framesDropped: {}, decoderErrors: {} };
window.dualcamStats = stats;

/** The binary message layout of docs/STUDIO.md. */
export function parseFrame(buffer) {
  if (!(buffer instanceof ArrayBuffer) || buffer.byteLength < HEADER_BYTES) return null;
  const view = new DataView(buffer);
  const traced = (view.getUint8(1) & 2) === 2 && buffer.byteLength >= HEADER_BYTES + TRACE_BYTES;
  const at = (offset) => (traced ? Number(view.getBigInt64(offset)) : 0);
  return {
    kind: view.getUint8(0),
    key: (view.getUint8(1) & 1) === 1,
    camera: view.getUint16(2),
    // Number, not BigInt: nanoseconds since boot stay exact for 104 days of uptime and
    // are off by under a microsecond after that, far below a frame.
    captureNs: Number(view.getBigInt64(4)),
    width: view.getUint16(12),
    height: view.getUint16(14),
    agentIndex: at(16),
    agentSentNs: at(24),
    hubReceivedNs: at(32),
    writtenNs: at(40),
    arrivedMs: performance.now(),
    payload: new Uint8Array(buffer, traced ? HEADER_BYTES + TRACE_BYTES : HEADER_BYTES),
  };
}

/**
 * The avc1 codec string from the SPS in front of a key frame, for when the state has not
 * said (yet) what the camera sends. Annex B: NAL units after 00 00 01 start codes.
 */
export function codecFromAnnexB(bytes) {
  for (let i = 0; i + 6 < bytes.length; i++) {
    if (bytes[i] === 0 && bytes[i + 1] === 0 && bytes[i + 2] === 1) {
      const nalType = bytes[i + 3] & 0x1f;
      if (nalType === 7) {
        const hex = (b) => b.toString(16).toUpperCase().padStart(2, '0');
        return `avc1.${hex(bytes[i + 4])}${hex(bytes[i + 5])}${hex(bytes[i + 6])}`;
      }
      i += 2;
    }
  }
  return null;
}

/** True when this browser can decode the H.264 the agents send (WebCodecs, secure page). */
export async function canDecodeH264() {
  if (!window.isSecureContext || !('VideoDecoder' in window)) return false;
  try {
    // Constrained Baseline 3.0, what the agents' previews are; a browser built without
    // H.264 has VideoDecoder but says no here, and would otherwise show nothing.
    const support = await VideoDecoder.isConfigSupported({ codec: 'avc1.42E01E', optimizeForLatency: true });
    return Boolean(support.supported);
  } catch {
    return false;
  }
}

/** Draws one camera's pictures into its canvas, sized to the picture. */
class CameraSink {
  constructor(index, canvasFor, onDrawn) {
    this.index = index;
    this.canvasFor = canvasFor;
    this.onDrawn = onDrawn;
    this.canvas = null;
    this.context = null;
    /** performance.now() of the last picture drawn, for "no picture for N s". */
    this.drawnAt = 0;
  }

  draw(picture, width, height, captureNs, record) {
    const canvas = this.canvasFor(this.index);
    if (!canvas) return false;
    if (canvas !== this.canvas) {
      this.canvas = canvas;
      this.context = canvas.getContext('2d', { alpha: false });
    }
    if (canvas.width !== width || canvas.height !== height) {
      // The canvas is the frame's size, so nothing is scaled twice; CSS fits it on screen.
      canvas.width = width;
      canvas.height = height;
    }
    this.context.drawImage(picture, 0, 0, width, height);
    this.drawnAt = performance.now();
    if (record) {
      record.drawnMs = this.drawnAt;
      record.fate = 'drawn';
    }
    stats.framesDrawn[this.index] = (stats.framesDrawn[this.index] || 0) + 1;
    stats.lastCapture[this.index] = captureNs;
    this.onDrawn(this.index);
    return true;
  }
}

function countDrop(index) {
  stats.framesDropped[index] = (stats.framesDropped[index] || 0) + 1;
}

/** One camera's H.264: a WebCodecs decoder fed Annex B access units (no description). */
class H264Stream {
  constructor(index, sink, codecFor, requestKeyframe) {
    this.index = index;
    this.sink = sink;
    this.codecFor = codecFor;
    this.requestKeyframe = requestKeyframe;
    this.keyAskedAt = -Infinity;
    this.decoder = null;
    this.configured = null; // {codec, width, height} the decoder was configured for
    this.waitingForKey = true;
    // Chunk timestamp (µs) -> the picture's trace record (its capture instant in full
    // precision, ns, and its stages).
    this.captures = new Map();
  }

  makeDecoder() {
    const decoder = new VideoDecoder({
      output: (frame) => {
        try {
          const record = this.captures.get(frame.timestamp);
          this.captures.delete(frame.timestamp);
          if (record) record.decodedMs = performance.now();
          const captureNs = record ? record.captureNs : frame.timestamp * 1000;
          this.sink.draw(frame, frame.displayWidth, frame.displayHeight, captureNs, record);
        } finally {
          // A VideoFrame holds a decoder buffer: keeping it stalls the decoder.
          frame.close();
        }
      },
      error: (error) => {
        console.warn(`studio: camera ${this.index} H.264 decoder failed; waiting for the next key frame`, error);
        stats.decoderErrors[this.index] = (stats.decoderErrors[this.index] || 0) + 1;
        // The error closed this decoder; the next key frame makes a new one.
        if (this.decoder !== decoder) return;
        this.decoder = null;
        this.configured = null;
        this.waitingForKey = true;
        this.captures.clear();
      },
    });
    return decoder;
  }

  push(frame) {
    const record = trace.arrived(frame);
    if (this.decoder && this.decoder.state === 'closed') {
      this.decoder = null;
      this.configured = null;
      this.waitingForKey = true;
    }
    if (this.decoder && this.decoder.decodeQueueSize > MAX_DECODE_QUEUE) {
      // Behind: every frame still queued would be shown late. Start over at a key frame.
      this.waitingForKey = true;
      if (frame.key) {
        this.decoder.reset();
        this.configured = null;
        this.captures.clear();
      }
    }
    if (this.waitingForKey && !frame.key) {
      record.fate = 'waiting-key';
      countDrop(this.index);
      this.askForKey();
      return;
    }
    if (frame.key) {
      const codec = this.codecFor(this.index) || codecFromAnnexB(frame.payload) || 'avc1.42E01E';
      const wanted = { codec, width: frame.width, height: frame.height };
      if (!this.decoder) this.decoder = this.makeDecoder();
      const c = this.configured;
      if (!c || c.codec !== wanted.codec || c.width !== wanted.width || c.height !== wanted.height) {
        try {
          // No description: the decoder reads SPS/PPS in band (Annex B).
          this.decoder.configure({ codec, optimizeForLatency: true });
        } catch (error) {
          console.warn(`studio: camera ${this.index}: cannot configure ${codec}`, error);
          record.fate = 'failed';
          countDrop(this.index);
          return;
        }
        this.configured = wanted;
      }
      this.waitingForKey = false;
    }
    const timestamp = Math.round(frame.captureNs / 1000);
    if (this.captures.size > 32) this.captures.clear(); // outputs lost to a reset
    this.captures.set(timestamp, record);
    try {
      this.decoder.decode(new EncodedVideoChunk({
        type: frame.key ? 'key' : 'delta',
        timestamp,
        data: frame.payload,
      }));
    } catch (error) {
      // decode() throws when the decoder is not configured (closed by an error in between).
      record.fate = 'failed';
      this.waitingForKey = true;
      countDrop(this.index);
    }
  }

  /**
   * Asks for a key frame now rather than waiting up to a second for the next regular one;
   * again every KEY_ASK_INTERVAL_MS while none comes (an ask can be lost: the agent's
   * answer dropped behind a segment, or the server's limit).
   */
  askForKey() {
    const now = performance.now();
    if (now - this.keyAskedAt < KEY_ASK_INTERVAL_MS) return;
    this.keyAskedAt = now;
    trace.keyAsked(this.index);
    this.requestKeyframe(this.index);
  }

  /** The stream starts again (a new socket, frames resumed): wait for a key frame. */
  resync() {
    this.waitingForKey = true;
  }

  close() {
    if (this.decoder && this.decoder.state !== 'closed') this.decoder.close();
    this.decoder = null;
  }
}

/** One camera's JPEG pictures: decoded off the main thread, one at a time. */
class JpegStream {
  constructor(index, sink) {
    this.index = index;
    this.sink = sink;
    this.decoding = false;
  }

  push(frame) {
    const record = trace.arrived(frame);
    if (this.decoding) {
      record.fate = 'busy';
      countDrop(this.index);
      return;
    }
    this.decoding = true;
    createImageBitmap(new Blob([frame.payload], { type: 'image/jpeg' }))
      .then((bitmap) => {
        record.decodedMs = performance.now();
        try {
          this.sink.draw(bitmap, bitmap.width, bitmap.height, frame.captureNs, record);
        } finally {
          bitmap.close();
        }
      })
      .catch(() => {
        record.fate = 'failed';
        countDrop(this.index);
      })
      .finally(() => {
        this.decoding = false;
      });
  }

  close() {}
}

/** Every camera's decoding, keyed by the camera index the frames carry. */
export class Previews {
  /**
   * @param {object} options
   * @param {(index: number) => HTMLCanvasElement | null} options.canvasFor
   * @param {(index: number) => string | null} options.codecFor the state's preview codec
   * @param {(index: number) => void} options.onDrawn a camera has a new picture
   */
  constructor({ canvasFor, codecFor, onDrawn, requestKeyframe = () => {} }) {
    this.canvasFor = canvasFor;
    this.codecFor = codecFor;
    this.requestKeyframe = requestKeyframe;
    this.onDrawn = onDrawn;
    this.cameras = new Map(); // index -> {sink, h264, jpeg}
  }

  camera(index) {
    let camera = this.cameras.get(index);
    if (!camera) {
      camera = { sink: new CameraSink(index, this.canvasFor, this.onDrawn), h264: null, jpeg: null };
      this.cameras.set(index, camera);
    }
    return camera;
  }

  handle(buffer) {
    const frame = parseFrame(buffer);
    if (!frame) return;
    const camera = this.camera(frame.camera);
    if (frame.kind === KIND_H264) {
      if (!('VideoDecoder' in window)) return;
      camera.h264 ??= new H264Stream(frame.camera, camera.sink, this.codecFor, this.requestKeyframe);
      camera.h264.push(frame);
    } else if (frame.kind === KIND_JPEG) {
      camera.jpeg ??= new JpegStream(frame.camera, camera.sink);
      camera.jpeg.push(frame);
    }
  }

  /** True once the camera's canvas holds a picture (so the composite can copy it). */
  hasPicture(index) {
    const camera = this.cameras.get(index);
    return Boolean(camera && camera.sink.drawnAt > 0);
  }

  /** Milliseconds since the camera's last picture, or Infinity if it never had one. */
  pictureAge(index) {
    const camera = this.cameras.get(index);
    return camera && camera.sink.drawnAt > 0 ? performance.now() - camera.sink.drawnAt : Infinity;
  }

  /**
   * Frames are about to start afresh (a new WebSocket, a tab shown again): the first
   * H.264 frames may be deltas whose references this decoder never saw, and decoding
   * them would smear the picture, so every camera waits for its next key frame.
   */
  resync() {
    for (const camera of this.cameras.values()) camera.h264?.resync();
  }

  /** Lets go of cameras that left the state, decoders included. */
  keepOnly(indices) {
    for (const [index, camera] of this.cameras) {
      if (!indices.has(index)) {
        camera.h264?.close();
        camera.jpeg?.close();
        this.cameras.delete(index);
      }
    }
  }
}
