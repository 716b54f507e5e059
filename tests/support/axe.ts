import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** axe-core in the page: the serious and critical violations, as "rule: target" lines. */
export const axeProblems = async (page: Page): Promise<string[]> => {
  // Evaluated through the devtools protocol: a <script> tag would be refused by the page's CSP (script-src 'self').
  await page.evaluate(readFileSync(AXE, 'utf8'));
  const result = await page.evaluate(() => (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] }));
  return (result.violations as any[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n: any) => `${v.id}: ${n.target.join(' ')}`));
};
