// The emulator's HTTP admin API (/_emulator/...) over the global fetch: JSON in, JSON out, and
// the readiness probe that both start and connect wait on.
import { setTimeout as sleep } from 'node:timers/promises';

// A hung emulator should fail the test that called it, not stall the whole run.
const REQUEST_TIMEOUT_MS = 30_000;
const HEALTH_POLL_MS = 50;

// A 4xx/5xx admin answer. The emulator answers errors as {"__type", "message"}; `name` carries the
// __type (as AWS SDK v3 errors do), `message` the text and `status` the HTTP status.
export class EmulatorAdminError extends Error {
  constructor(status, type, message) {
    super(message);
    this.name = type || `HTTP ${status}`;
    this.status = status;
  }
}

// Returns `call(method, path, body?, { accept }?)`, which resolves with the parsed JSON answer or
// throws an EmulatorAdminError. With `accept` (e.g. 'text/csv'), that media type is asked for and
// the call resolves with the answer's text instead; errors still come as JSON. `token` (when set)
// goes in the header that --admin-token checks.
export function adminCaller(url, token) {
  return async (method, path, body, { accept } = {}) => {
    const headers = {};
    if (token) headers['X-Emulator-Admin-Token'] = token;
    if (accept) headers.Accept = accept;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(url + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    if (!res.ok) {
      const json = parseJson(text);
      throw new EmulatorAdminError(res.status, json?.__type, json?.message ?? text);
    }
    return accept ? text : parseJson(text);
  };
}

function parseJson(text) {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

// Polls GET /_emulator/health (always open, even with --admin-token) until it answers 200,
// `deadline` (epoch ms) passes or `signal` aborts. The listening line alone is not enough for a
// container behind a port mapping, and the probe is cheap for a local process too.
export async function waitHealthy(url, deadline, signal) {
  let last = 'no answer';
  for (;;) {
    signal?.throwIfAborted();
    try {
      const res = await fetch(`${url}/_emulator/health`, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = err.cause?.code ?? err.cause?.message ?? err.message;  // fetch hides the reason in `cause`
    }
    if (Date.now() >= deadline) throw new Error(`${url}/_emulator/health did not answer 200 in time (last: ${last})`);
    await sleep(HEALTH_POLL_MS);
  }
}
