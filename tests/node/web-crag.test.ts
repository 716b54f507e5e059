import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHUNK_OPTIONS, maxChunkChars, processPage, renderedText } from '../../src/web';
import { dataPath, needsData } from '../support/benchmark-data';

// In the benchmark data folder (BENCHMARK_DATA, default ../shared/data beside the checkout).
const cragPages = dataPath('crag/sample5.jsonl.gz');
const present = existsSync(cragPages);

const loadPages = () => {
  const pages: { url: string; html: string }[] = [];
  for (const line of gunzipSync(readFileSync(cragPages)).toString('utf8').split('\n')) {
    if (!line.trim()) continue;
    for (const r of JSON.parse(line).search_results ?? []) pages.push({ url: r.page_url ?? '', html: r.page_result ?? '' });
  }
  return pages;
};

describe.skipIf(!present)(needsData('web processing on the 25 real CRAG pages'), () => {
  const pages = present ? loadPages() : [];
  const processed = pages.map((p) => ({ ...p, out: processPage(p.html) }));

  it('has the 25 pages and processes each without error', () => {
    expect(pages).toHaveLength(25);
    for (const p of processed) expect(Array.isArray(p.out.chunks)).toBe(true);
    // Most real pages carry readable text (a few are empty or client-rendered shells).
    expect(processed.filter((p) => p.out.chunks.length > 0).length).toBeGreaterThanOrEqual(18);
  });

  it('keeps chunks within the configured size bound and never empty', () => {
    const bound = maxChunkChars(DEFAULT_CHUNK_OPTIONS);
    for (const p of processed) for (const c of p.out.chunks) {
      expect(c.trim().length).toBeGreaterThan(0);
      expect(c.length).toBeLessThanOrEqual(bound);
    }
  });

  it('turns data tables into markdown with their header row', () => {
    const tables = processed.flatMap((p) => p.out.tables);
    expect(tables.length).toBeGreaterThan(5);
    for (const t of tables) {
      const lines = t.markdown.split('\n').filter((l) => !l.startsWith('Table: '));
      expect(lines[0]).toMatch(/^\| .+ \|$/);
      expect(lines[1]).toMatch(/^\|( --- \|)+$/);
      expect(t.markdown.length).toBeLessThanOrEqual(4100);
    }
    // The Wikipedia page's comparison of editions, and the Microsoft list of language packs, with their real headers.
    const wiki = processed.find((p) => p.url.includes('wikipedia.org/wiki/Microsoft_Office_2019'))!;
    expect(wiki.out.tables.some((t) => t.header.includes('Home & Student') && t.markdown.includes('| Outlook |'))).toBe(true);
    const ms = processed.find((p) => p.url.includes('support.microsoft.com'))!;
    expect(ms.out.tables.some((t) => t.header[0] === 'Language' && t.markdown.includes('| Afrikaans |'))).toBe(true);
  });

  it('drops boilerplate: no script code or cookie notices in the text', () => {
    for (const p of processed) {
      expect(p.out.text).not.toMatch(/function\s*\(|window\.|document\.getElementById/);
    }
  });

  it('reads what a reader sees: the text it verifies holds what the extraction kept, without the hidden parts', () => {
    let kept = 0;
    let found = 0;
    for (const p of processed) {
      const seen = renderedText(p.html).replace(/\s+/g, ' ');
      for (const block of p.out.text.split('\n').filter(Boolean)) {
        kept++;
        if (seen.includes(block.replace(/\s+/g, ' ').slice(0, 80))) found++;
      }
    }
    // A few blocks are laid out differently (a byline the extraction joins into one run), none is missing.
    expect(found / kept).toBeGreaterThan(0.99);
    // A shop page whose form messages (display:none until a form is sent) sit beside its visible heading.
    const shop = processed.find((p) => p.url.includes('cesarsway.com'))!;
    const seen = renderedText(shop.html);
    expect(seen).toContain('shop cesar millan');
    expect(seen).not.toContain('Thank you! Your submission has been received!');
    expect(shop.out.text).not.toContain('Thank you! Your submission has been received!');
    // The Wikipedia infobox row, a table row on one line.
    const wiki = processed.find((p) => p.url.includes('wikipedia.org/wiki/Microsoft_Office_2019'))!;
    expect(renderedText(wiki.html)).toMatch(/^Available in 102 languages/m);
  });
});
