// @module-tag slow
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startDev, type DevServer } from '../support/dev-server.mjs';
import { startStub, type Stub } from '../support/openai-stub.mjs';

/**
 * Issue 22: an open `npm run dev` (no API_KEYS) is usable by its own pages only. A page on another origin, in real
 * Chromium, can neither read the run list nor start a run (with a preflighted JSON POST or a "simple" text/plain one);
 * the UI itself works under its Content-Security-Policy without a single violation.
 */
declare const document: any;
declare const window: any;

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && process.env.CI) throw new Error(`Chromium is missing at ${CHROMIUM} (apt-get install -y chromium)`);

describe.skipIf(!hasChromium)('an open dev server in Chromium', () => {
  let stub: Stub;
  let dev: DevServer;
  let other: Server;
  let otherUrl = '';
  let browser: Browser;

  beforeAll(async () => {
    stub = await startStub();
    dev = await startDev({ vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: stub.url, LLM_MODEL: 'stub' }, timeoutMs: 110_000 });
    // "Another site": a plain page on another port of the same machine, the usual neighbour of a dev server.
    other = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>elsewhere</title><p>another site</p>');
    });
    const port = await freePort();
    await new Promise<void>((r) => other.listen(port, '127.0.0.1', r));
    otherUrl = `http://localhost:${port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dev?.stop();
    await stub?.close();
    await new Promise((r) => other?.close(r));
  });

  const questionsOnServer = async () => {
    const body = (await (await fetch(`${dev.url}/v1/runs?limit=100`)).json()) as { runs?: { question: string }[] };
    return (body.runs ?? []).map((r) => r.question);
  };

  it('a page on another origin cannot read /v1/runs nor start a run', async () => {
    // Something private to read: a run started by the owner (curl-style, no Origin).
    const own = await fetch(`${dev.url}/v1/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'my private question', mode: 'parametric' }),
    });
    expect(own.status).toBe(200);

    const page = await browser.newPage();
    await page.goto(otherUrl);
    const outcome = await page.evaluate(async (target: string) => {
      const attempt = async (fn: () => Promise<Response>) => {
        try {
          const res = await fn();
          return `read ${res.status}: ${(await res.text()).slice(0, 200)}`;
        } catch (e) {
          return `blocked: ${(e as Error).message}`;
        }
      };
      const json = JSON.stringify({ question: 'started by another site', mode: 'parametric' });
      return {
        list: await attempt(() => fetch(`${target}/v1/runs`)),
        start: await attempt(() => fetch(`${target}/v1/answer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json })),
        // No preflight for this one: the browser sends it and only hides the reply.
        simple: await attempt(() =>
          fetch(`${target}/v1/answer`, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: json.replace('another site', 'a simple request') } as RequestInit),
        ),
      };
    }, dev.url);
    expect(outcome.list).toMatch(/^blocked/);
    expect(outcome.list).not.toContain('my private question');
    expect(outcome.start).toMatch(/^blocked/);
    await page.close();

    const questions = await questionsOnServer();
    expect(questions).toContain('my private question');
    expect(questions.filter((q) => q.startsWith('started by'))).toEqual([]);
  });

  it('the UI works under its Content-Security-Policy with no violation', async () => {
    const page: Page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.exposeFunction('reportViolation', (text: string) => problems.push(text));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e: any) => window.reportViolation(`${e.violatedDirective} ${e.blockedURI}`));
    });
    const res = await page.goto(`${dev.url}/`);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(res?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res?.headers()['x-content-type-options']).toBe('nosniff');
    expect(res?.headers()['referrer-policy']).toBe('no-referrer');
    await page.waitForSelector('body[data-ready="true"]');
    stub.setScript({ parametric: ['Paris'], final: ['Paris'] });
    await page.fill('#question', 'What is the capital of France?');
    await page.selectOption('#mode', 'parametric');
    await page.click('#ask-button');
    await page.waitForSelector('.answer-text');
    expect(await page.textContent('.answer-text')).toContain('Paris');
    for (const path of ['/runs', '/workbench']) {
      await page.goto(`${dev.url}${path}`);
      await page.waitForSelector('body[data-ready="true"]');
    }
    expect(problems).toEqual([]);
    await page.close();
  });
});
