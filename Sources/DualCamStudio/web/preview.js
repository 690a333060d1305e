// Preview frames from the WebSocket, decoded and drawn into each camera's canvas.
//
// A preview is for watching now, so nothing here ever queues: a JPEG that arrives while
// the previous one is still decoding is dropped, and an H.264 decoder that falls behind
// skips to the next key frame. Each decoded picture is drawn at once and let go, and
// the camera's canvas then holds the latest picture for the composite to copy from.

export const KIND_H264 = 1;
export const KIND_JPEG = 2;
const HEADER_BYTES = 16;
/** More H.264 chunks than this waiting in a decoder means it cannot keep up. */
const MAX_DECODE_QUEUE = 2;

// Read by the browser tests; drawn counts only, never frames merely received.
export const stats = { framesDrawn: {}, lastCapture: {}, framesDropped: {}, decoderErrors: {} };
window.dualcamStats = stats;

/** The binary message layout of docs/STUDIO.md. */
export function parseFrame(buffer) {
  if (!(buffer instanceof ArrayBuffer) || buffer.byteLength < HEADER_BYTES) return null;
  const view = new DataView(buffer);
  return {
    kind: view.getUint8(0),
    key: (view.getUint8(1) & 1) === 1,
    camera: view.getUint16(2),
    // Number, not BigInt: nanoseconds since boot stay exact for 104 days of uptime and
    // are off by under a microsecond after that, far below a frame.
    captureNs: Number(view.getBigInt64(4)),
    width: view.getUint16(12),
    height: view.getUint16(14),
    payload: new Uint8Array(buffer, HEADER_BYTES),
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

  draw(picture, width, height, captureNs) {
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
    // Chunk timestamp (µs) -> capture instant (ns), so the stats keep full precision.
    this.captures = new Map();
  }

  makeDecoder() {
    const decoder = new VideoDecoder({
      output: (frame) => {
        try {
          const captureNs = this.captures.get(frame.timestamp) ?? frame.timestamp * 1000;
          this.captures.delete(frame.timestamp);
          this.sink.draw(frame, frame.displayWidth, frame.displayHeight, captureNs);
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
    if (this.decoder && this.decoder.state === 'closed') {
      this.decoder = null;
      this.configured = null;
      this.waitingForKey = true;
    }
    if (this.decoder && this.decoder.decodeQueueSize > MAX_DECODE_QUEUE) {
      // Behind: every frame still queued would be shown late. Start over at a key frame,
      // asked for now (at most four times a second) rather than up to a second away.
      if (!this.waitingForKey && performance.now() - this.keyAskedAt > 250) {
        this.keyAskedAt = performance.now();
        this.requestKeyframe(this.index);
      }
      this.waitingForKey = true;
      if (frame.key) {
        this.decoder.reset();
        this.configured = null;
        this.captures.clear();
      }
    }
    if (this.waitingForKey && !frame.key) {
      countDrop(this.index);
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
          countDrop(this.index);
          return;
        }
        this.configured = wanted;
      }
      this.waitingForKey = false;
    }
    const timestamp = Math.round(frame.captureNs / 1000);
    if (this.captures.size > 32) this.captures.clear(); // outputs lost to a reset
    this.captures.set(timestamp, frame.captureNs);
    try {
      this.decoder.decode(new EncodedVideoChunk({
        type: frame.key ? 'key' : 'delta',
        timestamp,
        data: frame.payload,
      }));
    } catch (error) {
      // decode() throws when the decoder is not configured (closed by an error in between).
      this.waitingForKey = true;
      countDrop(this.index);
    }
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
    if (this.decoding) {
      countDrop(this.index);
      return;
    }
    this.decoding = true;
    createImageBitmap(new Blob([frame.payload], { type: 'image/jpeg' }))
      .then((bitmap) => {
        try {
          this.sink.draw(bitmap, bitmap.width, bitmap.height, frame.captureNs);
        } finally {
          bitmap.close();
        }
      })
      .catch(() => countDrop(this.index))
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
