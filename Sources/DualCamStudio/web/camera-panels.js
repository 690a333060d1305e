// The camera panels (camera-panel.js), one in each camera's tile, for whatever cameras the
// state lists: none is assumed. A panel reads its camera when the camera connects (again),
// and when a take starts or ends (lock during takes changes values then); changes made
// from another viewer arrive on the WebSocket ("cameras") and are shown as they are.

import { CameraPanel } from './camera-panel.js';
import { getJSON, post } from './api.js';
import { onCameras } from './store.js';

export class CameraPanels {
  /** @param {(index: number) => HTMLElement|null} hostFor where camera `index`'s panel goes */
  constructor(hostFor) {
    this.hostFor = hostFor;
    this.entries = new Map();
    this.busy = null;
    onCameras((cameras) => {
      for (const camera of cameras) this.entries.get(camera.index)?.panel.apply(camera);
    });
  }

  panel(index) {
    return this.entries.get(index)?.panel ?? null;
  }

  update(state) {
    const agents = Array.isArray(state.agents) ? state.agents : [];
    const busy = Boolean(state.busy);
    const takeTurned = this.busy !== null && busy !== this.busy;
    this.busy = busy;
    const seen = new Set();
    for (const agent of agents) {
      const host = this.hostFor(agent.index);
      if (!host) continue;
      seen.add(agent.index);
      let entry = this.entries.get(agent.index);
      if (!entry) {
        const url = `/api/cameras/${agent.index}`;
        entry = { panel: new CameraPanel(agent.index, (body) => post(url, body, 'the camera setting was not sent')), connection: null };
        this.entries.set(agent.index, entry);
      }
      const { panel } = entry;
      if (panel.element.parentElement !== host) host.append(panel.element);
      panel.element.setAttribute('aria-label', `${agent.name || `Camera ${agent.index}`} settings`);
      panel.element.dataset.connection = agent.connection ?? 'connecting';
      panel.setPeers(agents);
      const connected = agent.connection === 'connected';
      if (connected && (entry.connection !== 'connected' || takeTurned)) this.read(panel);
      entry.connection = agent.connection;
    }
    for (const index of [...this.entries.keys()]) {
      if (!seen.has(index)) this.entries.delete(index);
    }
  }

  async read(panel) {
    try {
      const listing = await getJSON(`/api/cameras/${panel.index}`);
      const camera = (listing.cameras ?? []).find((c) => c.index === panel.index);
      if (camera) panel.apply(camera);
    } catch (error) {
      panel.showError('*', error.message);
    }
  }
}
