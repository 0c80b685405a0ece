import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { FAST_RUN } from './fast-run.js';

/** Debian's Chromium; `.ci/run` installs it. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** CI sets this, so that a missing browser fails the run instead of skipping the page tests. */
const BROWSER_REQUIRED = process.env.REQUIRE_BROWSER === 'true';

/** Whether page tests can run here: not in the fast run; a missing browser fails them when REQUIRE_BROWSER=true. */
export function browserAvailable(): boolean {
  if (FAST_RUN) return false;
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

/**
 * Everything a page did wrong, as it happens: uncaught errors, console errors and warnings, CSP
 * violations, failed requests, requests to anywhere but `origin`, and 4xx/5xx responses. Call it
 * before the page navigates; a test asserts that the list is empty.
 */
export async function collectPageProblems(page: Page, origin: string): Promise<string[]> {
  const problems: string[] = [];
  // Chrome reports a CSP violation on the console too; the event names the directive for sure.
  await page.addInitScript(() => {
    (globalThis as any).addEventListener('securitypolicyviolation', (event: any) =>
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`),
    );
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
  });
  page.on('requestfailed', (request) => problems.push(`failed ${request.url()}`));
  page.on('request', (request) => {
    if (!request.url().startsWith(`${origin}/`)) problems.push(`loaded from elsewhere: ${request.url()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
  });
  return problems;
}

/** Where the page tests leave their screenshots for a reviewer (not committed; CI may keep it). */
export const SCREENSHOTS_DIR = path.resolve(import.meta.dirname, '../../test-artifacts/screenshots');

/** The window a reviewer looks at: a common laptop screen. */
const SCREENSHOT_VIEWPORT = { width: 1280, height: 800 };

/**
 * Saves what `page` shows at 1280×800 as `test-artifacts/screenshots/<name>.png`, for a reviewer
 * to look at the pages as a person sees them (the tests assert the behaviour; this is the look).
 * `name` says which page and state (`dashboard-payment-sqlite`); a later run overwrites it.
 */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  await page.setViewportSize(SCREENSHOT_VIEWPORT);
  await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `${name}.png`) });
}
