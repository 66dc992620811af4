// node:test integration: one emulator per test file (or describe block), reset before each test.
import { after, before, beforeEach } from 'node:test';
import { connectEmulator, startEmulator } from './index.js';

// Registers the hooks in the current suite and returns a stand-in for the handle, usable inside
// tests and hooks (it only exists once `before` ran). With `url` or $SAGEMAKER_EMULATOR_URL it
// connects instead of starting a binary, so the same tests can run against a container.
export function useEmulator({ url = process.env.SAGEMAKER_EMULATOR_URL, ...options } = {}) {
  let handle;
  before(async () => {
    handle = url ? await connectEmulator(url, options) : await startEmulator(options);
  });
  after(() => handle?.stop());
  beforeEach(() => handle.reset());
  return new Proxy({}, {
    get(_, key) {
      if (!handle) throw new Error('useEmulator(): the emulator is there only inside tests and hooks');
      return handle[key];
    },
    has: (_, key) => handle !== undefined && key in handle,
  });
}
