// The terminal's keys: Enter starts and stops (twice, see TakeControls.pressPrimary),
// q stops, l next layout, s swap, p next picture-in-picture position (pip) or framing, Escape dismisses
// the message and disarms. Space is left to scroll the page: it is too easily pressed
// for a key that starts a recording (on a focused Record button it arms, as Enter).

import { dismissError } from './banner.js';

/** Typing in a field or using a focused control must never fire a shortcut. */
function isTyping(target) {
  if (!(target instanceof Element)) return false;
  return Boolean(target.closest('input, select, textarea, [contenteditable=""], [contenteditable="true"]'));
}

export function installShortcuts({ take, layout }) {
  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (isTyping(event.target)) return;
    const onButton = event.target instanceof Element && event.target.closest('button, a, summary');
    switch (event.key) {
      case 'Enter':
        // Enter on a focused button or link activates it, as it should.
        if (onButton) return;
        event.preventDefault();
        // Held keys repeat: a held Enter must not arm and confirm in one go.
        if (!event.repeat) take.pressPrimary();
        break;
      case 'q':
      case 'Q':
        if (!event.repeat && document.body.dataset.busy === 'true') take.pressPrimary();
        break;
      case 'l':
      case 'L':
        if (!event.repeat) layout.nextLayout();
        break;
      case 's':
      case 'S':
        if (!event.repeat) layout.sendSwap();
        break;
      case 'p':
      case 'P':
        if (!event.repeat) layout.nextPlacement();
        break;
      case 'Escape':
        take.disarm();
        dismissError();
        break;
      default:
        return;
    }
  });
}
