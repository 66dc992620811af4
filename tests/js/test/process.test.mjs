// The process contract: one listening line on stdout, logs elsewhere, SIGTERM exits 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulator, admin } from '../lib/emulator.mjs';

test('stdout carries exactly the listening line and SIGTERM exits 0', async () => {
  const emu = await startEmulator();
  const health = await admin(emu.url, '/_emulator/health');
  assert.equal(health.status, 200);
  const { code, signal, stdout } = await emu.stop();
  assert.equal(signal, null, 'exited by itself, not killed by the signal');
  assert.equal(code, 0);
  assert.equal(stdout, `sagemaker-emulator listening on ${emu.url}\n`,
    'stdout must hold only the listening line (logs belong on stderr)');
});
