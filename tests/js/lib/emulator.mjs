// Test harness: spawns sagemaker-emulator on an ephemeral port with an in-memory database and
// builds AWS SDK v3 clients pointed at it.
//
// The binary comes from the SAGEMAKER_EMULATOR_BIN environment variable (run.sh sets it).
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { after } from 'node:test';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';

export const DEFAULT_ACCOUNT = '123456789012';
export const DEFAULT_REGION = 'us-west-2';

const LISTENING_LINE = /^sagemaker-emulator listening on (http:\/\/127\.0\.0\.1:(\d+))$/;
const running = new Set();

process.on('exit', () => {
  for (const proc of running) proc.kill('SIGKILL');
});

function binaryPath() {
  const bin = process.env.SAGEMAKER_EMULATOR_BIN;
  if (!bin) {
    throw new Error('SAGEMAKER_EMULATOR_BIN is not set; run tests/js/run.sh /path/to/sagemaker-emulator');
  }
  return bin;
}

// Starts one emulator. Resolves once it printed its listening line.
// Returns { url, port, proc, stop(), output() }; stop() sends SIGTERM and resolves with
// { code, signal, stdout, stderr } once the process has exited.
export async function startEmulator(extraArgs = [], { timeoutMs = 15000 } = {}) {
  // --check-responses: every answer is checked against the service model (a departure is a 500).
  const args = ['--port', '0', '--db', ':memory:', '--check-responses', ...extraArgs];
  const proc = spawn(binaryPath(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout.setEncoding('utf8');
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (chunk) => { stderr += chunk; });
  const exited = new Promise((resolve) => {
    proc.on('exit', (code, signal) => { running.delete(proc); resolve({ code, signal }); });
  });

  const url = await new Promise((resolve, reject) => {
    let settled = false;
    const onError = (err) => fail(`cannot spawn ${binaryPath()}: ${err.message}`);
    const onExit = (code, signal) => fail(`emulator exited early (code ${code}, signal ${signal})`);
    const settle = () => {
      settled = true;
      clearTimeout(timer);
      proc.off('error', onError);
      proc.off('exit', onExit);
    };
    const fail = (why) => {
      if (settled) return;
      settle();
      proc.kill('SIGKILL');
      reject(new Error(`${why}\nargs: ${args.join(' ')}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    };
    const timer = setTimeout(() => fail(`no listening line within ${timeoutMs} ms`), timeoutMs);
    proc.on('error', onError);
    proc.on('exit', onExit);
    proc.stdout.on('data', (chunk) => {
      stdout += chunk; // keep draining stdout for the whole run so the server never blocks on it
      if (settled) return;
      const nl = stdout.indexOf('\n');
      if (nl < 0) return;
      const first = stdout.slice(0, nl).replace(/\r$/, '');
      const match = LISTENING_LINE.exec(first);
      if (!match) {
        fail(`first stdout line is not the listening line: ${JSON.stringify(first)}`);
      } else {
        settle();
        resolve(match[1]);
      }
    });
  });

  let stopping = null;
  const stop = () => {
    if (!stopping) {
      stopping = (async () => {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
        const killer = setTimeout(() => proc.kill('SIGKILL'), 5000);
        const { code, signal } = await exited;
        clearTimeout(killer);
        return { code, signal, stdout, stderr };
      })();
    }
    return stopping;
  };
  return {
    url,
    port: Number(new URL(url).port),
    proc,
    stop,
    output: () => ({ stdout, stderr }),
  };
}

// Starts an emulator for the current test file and stops it after all its tests.
export async function useEmulator(extraArgs = []) {
  const emu = await startEmulator(extraArgs);
  after(() => emu.stop());
  return emu;
}

function clientConfig(url, { accessKeyId = DEFAULT_ACCOUNT, region = DEFAULT_REGION } = {}) {
  return {
    endpoint: url,
    region,
    credentials: { accessKeyId, secretAccessKey: 'x' },
    maxAttempts: 1,
    // A hung emulator fails the test instead of hanging the suite.
    requestHandler: { connectionTimeout: 5000, requestTimeout: 15000 },
  };
}

// Clients keep the raw HTTP response of their last call in `client.lastRaw`
// ({ status, headers, text, json }), read below the SDK's deserializer. The SDK drops some body
// keys from errors (since @smithy/core 3.x it deletes `err.Message`), so tests that need to know
// what went over the wire look here.
export function recordRawResponses(client) {
  client.lastRaw = null;
  client.middlewareStack.add(
    (next) => async (args) => {
      client.lastRaw = null;
      const out = await next(args);
      const res = out.response;
      const chunks = [];
      for await (const chunk of res.body ?? []) chunks.push(Buffer.from(chunk));
      const buf = Buffer.concat(chunks);
      res.body = Readable.from(buf.length ? [buf] : []);
      const text = buf.toString('utf8');
      let json = null;
      try { json = text ? JSON.parse(text) : null; } catch { json = null; }
      client.lastRaw = { status: res.statusCode, headers: res.headers, text, json };
      return out;
    },
    { step: 'deserialize', priority: 'low', name: 'emulatorTestRawRecorder' },
  );
  return client;
}

export function sagemaker(url, opts) {
  return recordRawResponses(new SageMakerClient(clientConfig(url, opts)));
}

export function runtime(url, opts) {
  return recordRawResponses(new SageMakerRuntimeClient(clientConfig(url, opts)));
}

// Checks the raw error response of `client`'s last call: status, X-Amzn-ErrorType, and a body
// with __type, message and Message (the last so that SDKs that read `Message` see the text).
export function assertRawError(client, { status = 400, code, message }) {
  const raw = client.lastRaw;
  if (!raw) throw new Error('no raw response was recorded');
  const fail = (what) => { throw new Error(`${what}; raw response ${raw.status} ${raw.text}`); };
  if (raw.status !== status) fail(`status ${raw.status} != ${status}`);
  const header = raw.headers['x-amzn-errortype'] ?? raw.headers['X-Amzn-ErrorType'];
  if (header?.split(':')[0] !== code) fail(`X-Amzn-ErrorType ${JSON.stringify(header)} != ${JSON.stringify(code)}`);
  if (raw.json === null || typeof raw.json !== 'object') fail('error body is not a JSON object');
  const type = String(raw.json.__type ?? '').split(':')[0].split('#').pop();
  if (type !== code) fail(`__type ${JSON.stringify(raw.json.__type)} != ${JSON.stringify(code)}`);
  if (message !== undefined) {
    if (raw.json.message !== message) fail(`body "message" is not ${JSON.stringify(message)}`);
    if (raw.json.Message !== message) fail(`body "Message" is not ${JSON.stringify(message)}`);
  }
}

// Awaits a promise that must reject and returns the error. Fails the test if it resolves.
export async function errorOf(promise) {
  let value;
  try {
    value = await promise;
  } catch (err) {
    return err;
  }
  throw new Error(`expected the call to fail, but it succeeded with ${JSON.stringify(value)}`);
}

// Calls the admin API. Returns { status, json } (json is null for an empty or non-JSON body).
export async function admin(url, path, { method = 'GET', body } = {}) {
  const res = await fetch(new URL(path, url), {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15000),
  });
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, json, text, headers: res.headers };
}

export function modelArn(name, { account = DEFAULT_ACCOUNT, region = DEFAULT_REGION } = {}) {
  return `arn:aws:sagemaker:${region}:${account}:model/${name.toLowerCase()}`;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
