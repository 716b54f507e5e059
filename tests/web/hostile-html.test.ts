import { describe, expect, it } from 'vitest';
import { localEmbedder } from '../../src/embeddings/local';
import type { ChatRequest } from '../../src/llm/types';
import { scriptedLLM } from '../../src/llm/scripted';
import { ragStrategy } from '../../src/strategies/rag';
import { processPage, processPageAsync } from '../../src/web';
import { driveStrategy } from '../helpers/drive';

// Sizes are modest: these tests assert what a reader of the page gets, the bench (bench/hostile) measures time.
const prose = '<p>The Danube flows through ten countries. It is the second-longest river in Europe.</p>';

describe('processPage on hostile markup', () => {
  it('reads a page nested 50,000 divs deep, keeps its text and says the nesting was capped', () => {
    const page = processPage(`${'<div>'.repeat(50_000)}${prose}${'</div>'.repeat(50_000)}${prose}`);
    expect(page.text).toContain('The Danube flows through ten countries.');
    expect(page.notes.join(' ')).toMatch(/nested deeper than 256 elements/);
  });

  it('reads unclosed lists 40,000 levels deep', () => {
    const page = processPage(`${'<ul><li>item '.repeat(40_000)}${prose}`);
    expect(page.text).toContain('second-longest river');
    expect(page.notes.join(' ')).toMatch(/deeper tags were ignored/);
  });

  it('reads tables nested 30,000 deep without losing the text in them', () => {
    const page = processPage(`${'<table><tr><td>'.repeat(30_000)}Deepest cell text.`);
    expect(page.text).toContain('Deepest cell text.');
    expect(page.tables).toHaveLength(0);
  });

  it('reads misnested inline tags', () => {
    const page = processPage(`<p>${'<b><i>x</b></i>'.repeat(20_000)}</p>${'<b><i>y'.repeat(20_000)}${prose}`);
    expect(page.text).toContain('The Danube flows through ten countries.');
  });

  it('an end tag of a tag dropped at the depth cap does not close a real ancestor', () => {
    const deep = '<section>'.repeat(300);
    const page = processPage(`<table><tr><th>River</th><th>Km</th></tr><tr><td>Danube${deep}</section></td><td>2850</td></tr><tr><td>Rhine</td><td>1230</td></tr></table>`, { maxDepth: 20 });
    expect(page.tables[0]?.markdown).toContain('| Rhine | 1230 |');
  });

  it('cuts a page where its work budget runs out and says so', () => {
    const html = `${prose}${'<span>filler</span>'.repeat(5_000)}<p>Text after the cut.</p>`;
    const page = processPage(html, { maxWork: 20_000 });
    expect(page.text).toContain('The Danube flows through ten countries.');
    expect(page.text).not.toContain('Text after the cut.');
    expect(page.notes.join(' ')).toMatch(/page truncated: its processing budget ran out after \d+% of the page/);
    // The same page within the default budget is read to its end.
    expect(processPage(html).text).toContain('Text after the cut.');
    expect(processPage(html).notes).toEqual([]);
  });

  it('charges markup inside a part it leaves out like any other: hiding it does not stretch the budget', () => {
    // Two pages of the same length, the same markup, one block hidden: the budget runs out at the same place.
    const block = (attribute: string) => `<div ${attribute}>${'<span class="c" data-x="long attribute value">Zyx</span>'.repeat(400)}</div>`;
    const page = (attribute: string) => `${prose}${block(attribute)}${'<p>after</p>'.repeat(400)}`;
    const hidden = processPage(page('hidden'), { maxWork: 12_000 });
    const shown = processPage(page('hiddex'), { maxWork: 12_000 });
    expect(hidden.text).not.toContain('Zyx');
    expect(shown.text).toContain('Zyx');
    expect(hidden.notes[0]).toMatch(/page truncated: its processing budget ran out after \d+% of the page/);
    expect(hidden.notes).toEqual(shown.notes);
  });
});

describe('processPageAsync (what a run uses: it yields between slices of the page)', () => {
  it('gives the same result as processPage, also when entities and tags straddle slice edges', async () => {
    const html = `<title>T</title>${'<p>Caf&eacute; &amp; b&auml;r. Zwei.</p><div><b><i>x</b></i>'.repeat(12_000)}${'<ul><li>deep '.repeat(3_000)}`;
    expect(await processPageAsync(html)).toEqual(processPage(html));
    expect(await processPageAsync(html, { maxWork: 100_000 })).toEqual(processPage(html, { maxWork: 100_000 }));
  });
});

describe('rag mode on a hostile page', () => {
  it('tells the reasoning step that a page was cut or flattened', async () => {
    const deepPage = `<title>Deep page</title>${'<div>'.repeat(5_000)}${prose}`;
    const seen: string[] = [];
    const llm = scriptedLLM({
      attribute: Array(3).fill('Dynamism: static\nDomain: open'),
      calculator: Array(3).fill('NONE'),
      parametric: ['Answer: ten\nFalse premise: no'],
      reasoning: [
        (r: ChatRequest) => {
          seen.push(r.messages.filter((m) => m.role === 'user').map((m) => m.content as string).join('\n'));
          return '<reasoning>The page says ten.</reasoning>\n<answer>ten</answer>\n<false_premise>no</false_premise>';
        },
      ],
    });
    const { events } = await driveStrategy(ragStrategy, {
      request: { question: 'How many countries does the Danube flow through?', variant: 'crag', mode: 'rag', context: { pages: [{ url: 'https://example.com/deep', html: deepPage }] } },
      llm,
      services: { embedder: () => localEmbedder() },
    });
    expect(seen[0]).toContain('Notes on the pages');
    expect(seen[0]).toMatch(/Deep page: page nested deeper than 256 elements/);
    const retrieve = events.find((e) => e.type === 'observation' && (e.data as { tool: string }).tool === 'retrieve');
    expect((retrieve?.data as { output: string }).output).toMatch(/note: Deep page: page nested deeper/);
    expect(events.some((e) => e.type === 'answer')).toBe(true);
  });
});
