// The one Chromium launcher of the browser tests and the benchmarks: Debian's Chromium (or the one
// $CHROMIUM names) through playwright-core, headless, with the same flags everywhere.
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// No sandbox (it needs kernel features a container may lack), no background traffic or updates that could land in a
// measurement, and /tmp instead of a small /dev/shm.
const QUIET = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

/**
 * The flags for a launch. webgpu: WebGPU on (SwiftShader on a machine without a GPU), which
 * Chromium hides behind --enable-unsafe-webgpu; gpu: false (the default) adds --disable-gpu, the
 * page tests' setting; the WebGPU backend's own tests leave the GPU process on (gpu: true).
 */
export function chromiumArgs({ webgpu = false, gpu = false } = {}) {
  const args = [...QUIET];
  if (!gpu) args.splice(1, 0, '--disable-gpu');
  if (webgpu) args.push('--enable-unsafe-webgpu');
  return args;
}

/**
 * Launches Chromium with chromiumArgs(options); the caller closes the browser it returns. With the
 * default options and $HIROPE_CHROMIUM_WS set (scripts/test.sh: one Chromium for the run, started
 * by tools/chromium-server.mjs with the same flags), connects to that one instead: closing the
 * returned browser then closes this caller's contexts and disconnects. WebGPU launches (their
 * own flags) always start their own.
 */
export function launchChromium(options = {}) {
  const shared = process.env.HIROPE_CHROMIUM_WS;
  if (shared && !options.webgpu && !options.gpu) return chromium.connect(shared);
  return chromium.launch({ executablePath: CHROMIUM, args: chromiumArgs(options) });
}
