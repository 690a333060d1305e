// The WebSocket /ws: state and notices in, preview frames in, and what this viewer wants
// to see out. It reconnects by itself with a growing delay, since a studio is left open
// for hours and the coordinator may restart under it.

import { fetchState } from './api.js';
import { store, setState, addNotice, addCameras } from './store.js';
import { showError } from './banner.js';

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 10_000;

export class Connection {
  /**
   * @param {object} options
   * @param {() => string} options.format what to ask for: "h264", "jpeg" or "none"
   * @param {(buffer: ArrayBuffer) => void} options.onFrame one binary preview message
   * @param {(link: {state: string, retryInSeconds?: number}) => void} options.onLink
   * @param {(format: string) => void} options.onPreviewRequest frames start afresh after it
   */
  constructor({ format, onFrame, onLink, onPreviewRequest }) {
    this.format = format;
    this.onFrame = onFrame;
    this.onLink = onLink;
    this.onPreviewRequest = onPreviewRequest;
    this.socket = null;
    this.delay = FIRST_DELAY_MS;
    this.retryTimer = 0;
    this.reportedNoSession = false;
    // A hidden tab asks for nothing: agents encode previews only while someone watches.
    document.addEventListener('visibilitychange', () => this.sendPreviewRequest());
  }

  start() {
    this.loadState();
    this.open();
  }

  /** Asks again, e.g. after the format changed because H.264 turned out not to decode. */
  sendPreviewRequest() {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return;
    const format = document.visibilityState === 'hidden' ? 'none' : this.format();
    this.socket.send(JSON.stringify({ type: 'preview', format }));
    this.onPreviewRequest(format);
  }

  /** Asks the server for a key frame of this camera now (its decoder skipped frames). */
  requestKeyframe(camera) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return;
    this.socket.send(JSON.stringify({ type: 'keyframe', camera }));
  }

  async loadState() {
    const asked = store.version;
    try {
      const state = await fetchState();
      // A WebSocket state that arrived meanwhile is newer than this answer.
      if (store.version === asked) setState(state);
      this.reportedNoSession = false;
    } catch (error) {
      // 429: too many wrong tries from this address (a page still holding the session of
      // a coordinator that restarted counts too); its sentence says how long to wait.
      if (error.status === 401 || error.status === 403 || error.status === 429) {
        if (!this.reportedNoSession) showError(error.message);
        this.reportedNoSession = true;
      }
      // Anything else (server down) shows as the link state; the socket retries.
    }
  }

  open() {
    clearTimeout(this.retryTimer);
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebSocket(`${scheme}://${location.host}/ws`);
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    this.onLink({ state: 'connecting' });

    let heard = false;
    socket.addEventListener('open', () => {
      this.onLink({ state: 'live' });
      this.sendPreviewRequest();
      // The server pushes state after changes; a quiet rig would leave a fresh page blank.
      this.loadState();
    });
    socket.addEventListener('message', (event) => {
      if (!heard) {
        heard = true;
        // Only a socket that works resets the delay: one refused at once (a 403, say)
        // would otherwise be retried in a tight loop.
        this.delay = FIRST_DELAY_MS;
      }
      if (typeof event.data === 'string') {
        this.handleText(event.data);
      } else {
        this.onFrame(event.data);
      }
    });
    socket.addEventListener('close', () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.scheduleRetry();
    });
    // 'error' is always followed by 'close', which does the work.
  }

  handleText(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      console.warn('studio: a WebSocket message that is not JSON', text);
      return;
    }
    if (message.type === 'state') setState(message.state);
    else if (message.type === 'notice') addNotice(message.text);
    else if (message.type === 'cameras') addCameras(message.cameras);
  }

  scheduleRetry() {
    // Jitter so that several viewers do not all knock at the same instant after a restart.
    const wait = Math.round(this.delay * (0.8 + Math.random() * 0.4));
    this.delay = Math.min(MAX_DELAY_MS, this.delay * 2);
    this.onLink({ state: 'reconnecting', retryInSeconds: Math.ceil(wait / 1000) });
    this.retryTimer = setTimeout(() => {
      // The GET tells a lost session (401: say so) from a server that is down.
      this.loadState();
      this.open();
    }, wait);
  }
}
