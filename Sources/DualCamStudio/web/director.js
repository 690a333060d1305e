// The director's panel: who it hears speaking (per camera, from the composed sound, a
// segment or two behind the preview), whose shot is on air, and the one-click take-over
// and hand-back. Like every control, it only sends commands; what is lit comes from the
// server's state.

import { sendCommand } from './api.js';

const $ = (id) => document.getElementById(id);

export class DirectorPanel {
  constructor() {
    this.section = $('director');
    this.status = $('director-status');
    this.voices = $('director-voices');
    this.takeOver = $('director-take-over');
    this.handBack = $('director-hand-back');
    this.takeOver.addEventListener('click', () => sendCommand({ command: 'director', director: 'manual' }));
    this.handBack.addEventListener('click', () => sendCommand({ command: 'director', director: 'auto' }));
    this.key = '';
  }

  update(state) {
    const director = state.take && !state.take.isOver ? state.take.director : null;
    this.section.hidden = !director;
    if (!director) return;
    const names = new Map((state.agents ?? []).map((a) => [a.index, a.camera || a.name]));
    const speaking = new Set(director.speaking ?? []);
    const shot = new Set(director.shot ?? []);
    const key = JSON.stringify([[...names.keys()], [...speaking], [...shot], director.following]);
    if (key !== this.key) {
      this.key = key;
      this.voices.replaceChildren(...[...names.keys()].map((index) => {
        const chip = document.createElement('span');
        chip.className = 'voice';
        chip.dataset.camera = String(index);
        chip.dataset.speaking = String(speaking.has(index));
        chip.dataset.onAir = String(director.following && shot.has(index));
        chip.textContent = names.get(index);
        chip.title = speaking.has(index) ? 'speaking' : 'listening';
        return chip;
      }));
    }
    const status = director.following
      ? `The director cuts · ${director.cuts} cut${director.cuts === 1 ? '' : 's'} so far`
      : 'You have the programme · the director keeps listening';
    if (this.status.textContent !== status) this.status.textContent = status;
    this.takeOver.hidden = !director.following;
    this.handBack.hidden = director.following;
  }
}
