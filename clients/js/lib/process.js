// The emulator as a child process: finding the binary, reading its port from the listening line,
// waiting until it is ready, and stopping it.
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitHealthy } from './admin.js';

const BINARY_NAME = 'sagemaker-emulator';
// The server's only stdout line; it shows the port that --port 0 picked.
const LISTENING = /^sagemaker-emulator listening on (http:\/\/\S+)$/;
const STDERR_TAIL_CHARS = 4000;

// Children still running when this process exits are killed, so a test file that crashed or
// forgot stop() leaves no server behind (and, since the children are unref'd, does not hang).
const running = new Set();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

// The binary: the option, else $SAGEMAKER_EMULATOR_BINARY, else sagemaker-emulator on $PATH.
// `env` is the child's environment, so a PATH given for the child is also the one searched.
export function findBinary(option, env) {
  const given = option || env.SAGEMAKER_EMULATOR_BINARY;
  if (given) {
    if (isExecutableFile(given)) return given;
    throw notFound(`${given} is not an executable file`);
  }
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, BINARY_NAME);
    if (isExecutableFile(candidate)) return candidate;
  }
  throw notFound(`no ${BINARY_NAME} on PATH`);
}

function isExecutableFile(path) {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function notFound(why) {
  return new Error(`sagemaker-emulator binary not found (${why}): pass the \`binary\` option, ` +
    `set SAGEMAKER_EMULATOR_BINARY, or put ${BINARY_NAME} on PATH`);
}

// Starts `binary` on a free port with an in-memory database and resolves with { url, stop } once
// /_emulator/health answers. If it exits, fails to spawn or is not ready by `deadline` (epoch ms),
// it is killed and the promise rejects with the tail of its stderr.
export async function spawnEmulator({ binary, args, env, deadline }) {
  const child = spawn(binary, ['--port', '0', '--db', ':memory:', ...args], {
    env, stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  }).finally(() => running.delete(child));
  // Aborted once the child is gone, which ends whichever start-up step is waiting.
  const gone = new AbortController();
  child.once('error', (err) => gone.abort(err));
  exited.then(({ code, signal }) => gone.abort(new Error(`it exited (${signal ?? `code ${code}`})`)));
  const stderrTail = keepTail(child.stderr);
  // The caller's event loop should not wait for the server: stop() or process exit ends it.
  for (const handle of [child, child.stdout, child.stderr]) handle.unref();

  try {
    const url = await listeningUrl(child.stdout, deadline, gone.signal);
    await waitHealthy(url, deadline, gone.signal);
    return { url, stop: (options) => stopChild(child, exited, options) };
  } catch (err) {
    child.kill('SIGKILL');
    running.delete(child);
    // 'exit' can come before the last stderr chunks were read, and those say why. The wait is
    // bounded: a grandchild could hold the pipe open.
    await Promise.race([finished(child.stderr).catch(() => {}), sleep(500)]);
    throw new Error(`sagemaker-emulator did not start: ${err.message}\n` +
      `command: ${binary} ${child.spawnargs.slice(1).join(' ')}\nstderr (tail):\n${stderrTail()}`);
  }
}

// Drains `stream` for the child's whole life (a full pipe would block the server's logging) and
// returns a function giving its last few thousand characters.
function keepTail(stream) {
  let tail = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    tail = (tail + chunk).slice(-STDERR_TAIL_CHARS);
  });
  return () => tail;
}

// Resolves with the URL of the listening line. The line reader stays attached afterwards, so
// stdout keeps being consumed.
function listeningUrl(stdout, deadline, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no listening line on stdout in time')),
      Math.max(0, deadline - Date.now()));
    const settle = (fn, value) => {
      clearTimeout(timer);
      fn(value);
    };
    createInterface({ input: stdout }).on('line', (line) => {
      const match = LISTENING.exec(line);
      if (match) settle(resolve, match[1]);
    });
    signal.addEventListener('abort', () => settle(reject, signal.reason), { once: true });
  });
}

// SIGTERM (the server shuts down cleanly), then SIGKILL if it is still there after `timeoutMs`.
async function stopChild(child, exited, { timeoutMs = 5000 } = {}) {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    await exited;
  } finally {
    clearTimeout(killer);
  }
}
