// HTTP: the state on load and the commands. Commands carry the CSRF token from the state
// (the server refuses a POST without it), and every refusal is shown in the server's words.

import { store } from './store.js';
import { showError } from './banner.js';

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

async function errorFrom(response) {
  try {
    const body = await response.json();
    // The server's words say what went wrong and what to do: shown as they are.
    if (body && typeof body.error === 'string') return new ApiError(body.error, response.status);
  } catch {
    // Not JSON (a proxy's page, say): the status line is all there is.
  }
  let message = `${response.status} ${response.statusText}`.trim();
  if (response.status === 401) {
    message += ': this browser has no session. Open the studio link the terminal printed (with its ?token=) again.';
  }
  return new ApiError(message, response.status);
}

export async function fetchState() {
  const response = await fetch('/api/state', {
    cache: 'no-store',
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
  });
  if (!response.ok) throw await errorFrom(response);
  return response.json();
}

/**
 * Sends one command. Resolves true when the server took it; otherwise shows why in the
 * banner and resolves false. The screen itself changes only when the resulting state
 * arrives, so every viewer sees the same thing at the same time.
 */
export async function sendCommand(body) {
  return (await postJSON('/api/command', body, `the command "${body.command}" was not sent`)) !== null;
}

/**
 * POSTs `body` as JSON to `url` (a library action) with the CSRF token. Resolves the
 * answer's JSON, or null after showing the server's words in the banner.
 */
export async function postJSON(url, body, unsent = 'nothing was sent') {
  const answer = await post(url, body, unsent);
  if (!answer.ok) {
    showError(answer.error);
    return null;
  }
  return answer.body;
}

/**
 * POSTs `body` as JSON to `url` with the CSRF token, showing nothing: resolves
 * {ok: true, body} or {ok: false, status, error} with the server's words, for a caller
 * that shows a refusal where it belongs (next to a camera's control).
 */
export async function post(url, body, unsent = 'nothing was sent') {
  const csrf = store.state && store.state.csrf;
  if (!csrf) {
    return { ok: false, status: 0, error: `Not connected to the studio yet, so ${unsent}. Wait for the pictures, then try again.` };
  }
  let response;
  try {
    response = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-DualCam-CSRF': csrf },
      body: JSON.stringify(body),
    });
  } catch (error) {
    return { ok: false, status: 0, error: `The studio server did not answer (${error.message}); ${unsent}.` };
  }
  if (!response.ok) {
    return { ok: false, status: response.status, error: (await errorFrom(response)).message };
  }
  return { ok: true, body: await response.json() };
}

export async function getJSON(url) {
  const response = await fetch(url, { cache: 'no-store', credentials: 'same-origin', headers: { Accept: 'application/json' } });
  if (!response.ok) throw await errorFrom(response);
  return response.json();
}
