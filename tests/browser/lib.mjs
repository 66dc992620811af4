// Test harness for the dashboard: starts sagemaker-emulator on a free port, builds AWS SDK v3
// clients for it, and launches Debian's chromium headless through playwright-core.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';

export const ACCOUNT = '123456789012';
export const REGION = 'us-west-2';
export const P5 = 'ml.p5.48xlarge';
export const HOUR = 3600e3;
export const DAY = 24 * HOUR;

// A temporary directory removed by the returned cleanup function.
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function writeJson(dir, name, value) {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

// Starts the emulator; resolves once it printed its listening line. Returns { url, stop() }.
export async function startEmulator(args) {
  const bin = process.env.SAGEMAKER_EMULATOR_BIN;
  if (!bin) throw new Error('SAGEMAKER_EMULATOR_BIN is not set; use tests/browser/run.sh');
  const proc = spawn(bin, ['--port', '0', ...(args.includes('--db') ? [] : ['--db', ':memory:']), '--log-level', 'warn',
    '--check-responses', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stderr.setEncoding('utf8').on('data', (c) => { stderr += c; });
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line in 15 s\n${stderr}`)), 15000);
    proc.on('exit', (code) => reject(new Error(`emulator exited (${code})\n${stderr}`)));
    proc.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
      const match = /^sagemaker-emulator listening on (http:\/\/\S+)\n/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  return {
    url,
    stop: async () => {
      proc.kill('SIGTERM');
      const killer = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    },
  };
}

function clientConfig(url) {
  return {
    endpoint: url,
    region: REGION,
    credentials: { accessKeyId: ACCOUNT, secretAccessKey: 'x' },
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 5000, requestTimeout: 15000 },
  };
}
export const sagemaker = (url) => new SageMakerClient(clientConfig(url));
export const runtime = (url) => new SageMakerRuntimeClient(clientConfig(url));

// POST to the admin API; fails unless it answers 200.
export async function admin(url, path, body) {
  const res = await fetch(new URL(path, url), { method: 'POST', body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

// Debian's chromium, headless, with a profile of its own. The flags keep it from reaching out to
// the network (there is none in CI) and from waiting on services it cannot reach. `options` go to
// the context (e.g. { timezoneId: 'America/Los_Angeles' }).
export async function launchBrowser(options = {}) {
  const profile = tempDir('smemu-chromium-');
  const context = await chromium.launchPersistentContext(profile.dir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1440, height: 1000 },
    ...options,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-dev-shm-usage'],
  });
  return {
    context,
    close: async () => {
      await context.close();
      profile.remove();
    },
  };
}
