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

// Features off beside Playwright's own: Chromium 156 renders the address bar's popup (the "AI
// mode" search box) as a WebUI page in a renderer of its own for every new window, headless ones
// too. That cost 2.5 s of CPU per browser context, 40% of a playground page load on this 2-core
// machine, for no part of any page under test.
const DISABLED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];

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

let defaultFeatureSwitch = null;
/**
 * Playwright's own --disable-features switch, as one launch of this Chromium shows it (read once
 * per process). Chromium keeps only the last --disable-features of a command line, so ours must
 * carry Playwright's names too, and its switch be left out.
 */
function playwrightFeatureSwitch() {
  defaultFeatureSwitch ??= (async () => {
    // --enable-automation: the condition of Browser.getBrowserCommandLine.
    const probe = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--enable-automation'],
    });
    try {
      const session = await probe.newBrowserCDPSession();
      const { arguments: args } = await session.send('Browser.getBrowserCommandLine');
      return args.find((arg) => arg.startsWith('--disable-features=')) ?? null;
    } finally {
      await probe.close();
    }
  })();
  return defaultFeatureSwitch;
}

/**
 * Playwright launch options (launch, launchServer) for chromiumArgs(options): Playwright's own
 * --disable-features switch replaced by one that holds its names and DISABLED_FEATURES.
 */
export async function launchOptions(options = {}) {
  const theirs = await playwrightFeatureSwitch();
  const names = theirs ? theirs.slice('--disable-features='.length).split(',') : [];
  const features = `--disable-features=${[...new Set([...names, ...DISABLED_FEATURES])].join(',')}`;
  return {
    executablePath: CHROMIUM,
    args: [...chromiumArgs(options), features],
    ...(theirs && { ignoreDefaultArgs: [theirs] }),
  };
}

/**
 * Launches Chromium with launchOptions(options); the caller closes the browser it returns. With
 * the default options and $HIROPE_CHROMIUM_WS set (scripts/test.sh: one Chromium for the run,
 * started by tools/chromium-server.mjs with the same flags), connects to that one instead:
 * closing the returned browser then closes this caller's contexts and disconnects. WebGPU
 * launches (their own flags) always start their own.
 */
export async function launchChromium(options = {}) {
  const shared = process.env.HIROPE_CHROMIUM_WS;
  if (shared && !options.webgpu && !options.gpu) return chromium.connect(shared);
  return chromium.launch(await launchOptions(options));
}
