// One Chromium for a whole test run (scripts/test.sh): launched once with the browser tests' flags,
// its endpoint printed as the first line of stdout (the caller reads that line, so that nothing
// waits on a timer), then kept until stdin closes or SIGTERM. launchChromium() connects to it
// when $HIROPE_CHROMIUM_WS names it; each test file still gets its own contexts and pages, and
// closing its browser only disconnects that file.
import { chromium } from 'playwright-core';
import { launchOptions } from './chromium.mjs';

const server = await chromium.launchServer(await launchOptions());
process.stdout.write(`${server.wsEndpoint()}\n`);
let closing = false;
const close = async () => {
  if (closing) return;
  closing = true;
  await server.close();
  process.exit(0);
};
process.on('SIGTERM', close);
process.on('SIGINT', close);
process.stdin.on('end', close);
process.stdin.resume();
