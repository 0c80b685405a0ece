import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium; `.ci/run` installs it. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** CI sets this, so that a missing browser fails the run instead of skipping the page tests. */
const BROWSER_REQUIRED = process.env.REQUIRE_BROWSER === 'true';

/** Whether page tests can run here (a missing browser fails them when REQUIRE_BROWSER=true). */
export function browserAvailable(): boolean {
  const found = fs.existsSync(CHROMIUM_PATH);
  if (!found && BROWSER_REQUIRED) throw new Error(`REQUIRE_BROWSER is set but ${CHROMIUM_PATH} does not exist`);
  return found;
}

/** Headless Chromium with no background networking (this machine's network is closed). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
