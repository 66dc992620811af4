// sagemaker-emulator for JavaScript tests: start the emulator binary (startEmulator) or use one
// that already runs, e.g. in a container (connectEmulator). Both resolve with the same handle
// (see lib/handle.js and index.d.ts).
import { EmulatorAdminError, waitHealthy } from './lib/admin.js';
import { createHandle } from './lib/handle.js';
import { findBinary, spawnEmulator } from './lib/process.js';

export { EmulatorAdminError };

const READY_TIMEOUT_MS = 15_000;

export async function startEmulator({
  binary, args = [], env = {}, adminToken, region, accountId, timeoutMs = READY_TIMEOUT_MS,
} = {}) {
  // The server also reads its token from SAGEMAKER_EMULATOR_ADMIN_TOKEN, so a token inherited from
  // the caller's environment applies to the child too, and the handle must send it.
  const childEnv = { ...process.env, ...env };
  if (adminToken) childEnv.SAGEMAKER_EMULATOR_ADMIN_TOKEN = adminToken;
  const { url, stop } = await spawnEmulator({
    binary: findBinary(binary, childEnv), args, env: childEnv, deadline: Date.now() + timeoutMs,
  });
  return createHandle({ url, region, accountId, adminToken: childEnv.SAGEMAKER_EMULATOR_ADMIN_TOKEN, stop });
}

export async function connectEmulator(url = process.env.SAGEMAKER_EMULATOR_URL, {
  adminToken = process.env.SAGEMAKER_EMULATOR_ADMIN_TOKEN, region, accountId, timeoutMs = READY_TIMEOUT_MS,
} = {}) {
  if (!url) throw new Error('connectEmulator: pass the emulator URL or set SAGEMAKER_EMULATOR_URL');
  const base = new URL(url).href.replace(/\/+$/, '');
  // A container may still be starting when the tests do.
  await waitHealthy(base, Date.now() + timeoutMs);
  // The emulator belongs to someone else: stopping the handle leaves it running.
  return createHandle({ url: base, region, accountId, adminToken, stop: async () => {} });
}
