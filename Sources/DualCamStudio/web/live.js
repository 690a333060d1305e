// The programme's live streams (--stream): an ON AIR mark in the header while any
// destination is live, and each destination's health in the take panel. A stream that
// fails never touches the recording; this only says how the stream fares.

import { sendCommand } from './api.js';

const $ = (id) => document.getElementById(id);

const time = (seconds) => {
  const s = Math.floor(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

export class LivePanel {
  constructor() {
    this.mark = $('on-air-mark');
    this.list = $('live-out');
    this.toggle = $('live-toggle');
    this.toggle.addEventListener('click', () => sendCommand({ command: 'live', live: this.toggle.dataset.live !== 'true' }));
    // The take ends and is kept; a take that is only live follows it (RigCommand.stopRecording).
    this.stopRecording = $('stop-recording');
    this.stopRecording.addEventListener('click', () => sendCommand({ command: 'stop', live: true }));
  }

  update(state) {
    const take = state.take && !state.take.isOver ? state.take : null;
    const streams = take?.liveOut ?? [];
    const onAir = streams.some((s) => s.state === 'live');
    this.mark.hidden = !onAir;
    const mark = take?.liveOnly ? 'ON AIR · not recording' : 'ON AIR';
    if (this.mark.textContent !== mark) this.mark.textContent = mark;
    this.list.hidden = streams.length === 0;
    // Go live / End live while a take records (the recording goes on either way); with
    // no take, Go live streams without recording, and End live then ends it.
    const on = streams.some((s) => s.state !== 'off');
    this.toggle.hidden = take ? streams.length === 0 : !(state.plan?.streams > 0);
    this.toggle.dataset.live = String(on);
    this.toggle.textContent = on ? 'End live' : 'Go live';
    this.toggle.title = take ? (take.liveOnly ? 'End the stream; nothing of it is kept' : 'Stop or resume the live stream; the recording goes on either way')
      : 'Stream the programme now, without recording (Record keeps it)';
    this.stopRecording.hidden = !(on && take?.phase === 'recording' && !take.liveOnly);
    const lines = streams.map((s) => {
      const health = s.state === 'live' ? `live ${time(s.liveSeconds)}, ${s.kbps} kbit/s` : s.state;
      const extra = [s.reconnects > 0 ? `${s.reconnects} reconnects` : null,
        s.droppedFrames > 0 ? `${s.droppedFrames} frames not sent (slow uplink; the recording has them)` : null].filter(Boolean);
      return { state: s.state, text: `${s.destination}: ${health}${extra.length ? ` · ${extra.join(' · ')}` : ''}` };
    });
    const key = JSON.stringify(lines);
    if (this.shown === key) return;
    this.shown = key;
    this.list.replaceChildren(...lines.map((l) => {
      const item = document.createElement('li');
      item.dataset.state = l.state;
      item.textContent = l.text;
      return item;
    }));
  }
}
