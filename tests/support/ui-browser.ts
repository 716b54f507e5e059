import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startDev, type DevServer } from './dev-server.mjs';
import { startStub, type Stub } from './openai-stub.mjs';

/** The system Chromium the browser tests drive through playwright-core (CI installs it; nothing is downloaded). */
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && process.env.CI) {
  throw new Error(`Chromium is missing at ${CHROMIUM}: the browser tests need it (apt-get install -y chromium; .ci/run does this).`);
}

export interface UiServer {
  base: string;
  stub: Stub;
  /** A new page at `path`, once the app says it is ready; `problems` collects uncaught page errors. */
  openPage: (path: string, viewport?: { width: number; height: number }) => Promise<{ page: Page; problems: string[] }>;
  close: () => Promise<void>;
}

/**
 * The web UI as a person meets it: `wrangler dev` (TEST_MODE, for the test-only tool-loop mode) whose model is the
 * OpenAI-compatible stub serving the model name `stub`, and a headless Chromium.
 */
export const startUi = async ({ latencyMs = 0 }: { latencyMs?: number } = {}): Promise<UiServer> => {
  const stub = await startStub({ port: 0, latencyMs });
  let dev: DevServer | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await dev?.stop();
    await stub.close();
  };
  try {
    dev = await startDev({ vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: stub.url, LLM_MODEL: 'stub', TEST_MODE: 'true' } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  } catch (err) {
    await close();
    throw err;
  }
  const base = dev.url;
  const openPage: UiServer['openPage'] = async (path, viewport = { width: 900, height: 1100 }) => {
    const page = await browser!.newPage({ viewport });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.goto(`${base}${path}`);
    await page.waitForSelector('body[data-ready="true"]');
    return { page, problems };
  };
  return { base, stub, openPage, close };
};

/** The run's POST gets test options (tick count and delay) added on the way out; the UI itself sends none. */
export const withRunOptions = (page: Page, options: Record<string, unknown>) =>
  page.route('**/v1/answer', (route) => {
    const body = JSON.parse(route.request().postData() ?? '{}');
    return route.continue({ postData: JSON.stringify({ ...body, options }) });
  });
