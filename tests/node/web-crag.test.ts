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

  it('verifies against the one rendering the model is shown, which leaves out what a reader does not see', () => {
    for (const p of processed) {
      // The text an answer is verified against is the extraction itself: title, prose, tables.
      expect(renderedText(p.html)).toBe([p.out.title, p.out.text, ...p.out.tables.map((t) => t.markdown)].filter(Boolean).join('\n'));
    }
    // A shop page whose form messages (display:none until a form is sent) sit beside its visible heading.
    const shop = processed.find((p) => p.url.includes('cesarsway.com'))!;
    expect(renderedText(shop.html)).not.toContain('Thank you! Your submission has been received!');
    // A dog-breed guide's exit pop-up, hidden by the page's own attribute rule ([x-cloak]{display:none}) until a script shows it.
    const guide = processed.find((p) => p.url.includes('weenect.com'))!;
    expect(guide.html).toContain('Choosing a dog that matches your personality');
    expect(renderedText(guide.html)).not.toContain('Choosing a dog that matches your personality');
    expect(renderedText(guide.html)).toContain('longest');
    // The Wikipedia infobox row is read as its reader sees it.
    const wiki = processed.find((p) => p.url.includes('wikipedia.org/wiki/Microsoft_Office_2019'))!;
    expect(renderedText(wiki.html)).toMatch(/^102 languages$/m);
  });
});
