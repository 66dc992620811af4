import type { ConnectOptions, EmulatorHandle, StartOptions } from './index.js';

export interface UseEmulatorOptions extends StartOptions, ConnectOptions {
  /** Connect to this running emulator instead of starting one (default $SAGEMAKER_EMULATOR_URL). */
  url?: string;
}

/**
 * Registers node:test hooks in the current file or describe block: `before` starts (or connects),
 * `beforeEach` resets, `after` stops. The returned handle may be used inside tests and hooks only.
 */
export function useEmulator(options?: UseEmulatorOptions): EmulatorHandle;
