// The hand-written declarations as a TypeScript user meets them: index.d.ts and node-test.d.ts of
// the installed package are valid on their own, and types/usage.mts (a user's code with the
// pinned SDK clients) compiles against them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { promisify } from 'node:util';

const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const TYPES_DIR = new URL('./types/', import.meta.url);

// Resolves with tsc's diagnostics ('' when the project compiles).
async function tsc(project) {
  try {
    await promisify(execFile)(process.execPath, [TSC, '--pretty', 'false', '-p', project], { cwd: TYPES_DIR });
    return '';
  } catch (err) {
    if (err.code === undefined) throw err;
    return err.stdout + err.stderr;
  }
}

test('the declarations type-check on their own', async () => {
  assert.equal(await tsc('tsconfig.declarations.json'), '');
});

test('a user\'s TypeScript code compiles against them, with the SDK clients', async () => {
  assert.equal(await tsc('tsconfig.json'), '');
});
