// The page's copy of the server's state. The server is the truth and several viewers
// watch the same rig, so nothing here is ever changed by the page: a click sends a
// command, and the screen changes when the state that results comes back.

const stateListeners = new Set();
const noticeListeners = new Set();
const cameraListeners = new Set();

export const store = {
  /** The last state the server sent, or null before the first one. */
  state: null,
  /** performance.now() when it arrived: clocks (take time, "lost for") run on from it. */
  receivedAt: 0,
  /** Bumped by every state, so a slow GET cannot overwrite a newer WebSocket state. */
  version: 0,
};

export function onState(listener) {
  stateListeners.add(listener);
}

export function onNotice(listener) {
  noticeListeners.add(listener);
}

export function setState(state) {
  if (!state || typeof state !== 'object') return;
  const previous = store.state;
  store.state = state;
  store.receivedAt = performance.now();
  store.version += 1;
  for (const listener of stateListeners) {
    // One broken panel must not stop the others (or the previews) from updating.
    try {
      listener(state, previous);
    } catch (error) {
      console.error('state listener failed', error);
    }
  }
}

export function addNotice(text) {
  for (const listener of noticeListeners) {
    try {
      listener(String(text));
    } catch (error) {
      console.error('notice listener failed', error);
    }
  }
}

/** Seconds since the current state arrived, for values that keep running between states. */
export function secondsSinceState() {
  return store.state ? (performance.now() - store.receivedAt) / 1000 : 0;
}

/** True while a take is under way (the only time Stop means anything). */
export function isBusy(state = store.state) {
  return Boolean(state && state.busy);
}

/** Cameras some viewer changed (their panels as the server now has them): WebSocket "cameras". */
export function onCameras(listener) {
  cameraListeners.add(listener);
}

export function addCameras(cameras) {
  if (!Array.isArray(cameras)) return;
  for (const listener of cameraListeners) {
    try {
      listener(cameras);
    } catch (error) {
      console.error('camera listener failed', error);
    }
  }
}
