// Issue 33 group of bench/hostile, `hidden-text`: rag runs over a page that holds the answer only where a reader does
// not see it (display:none, the hidden attribute, <template>, a zero-size font, a rule of the page's own <style>; since
// issue 40 also text in its background's colour, opacity 0.01, translateX(-10000px), a zero-size <svg>, and the page's
// descendant, child and attribute rules), or written across inline tags (`Quen<b>dri</b>th`, one word on screen). The
// model (the stub) always answers "Quendrith". What it shows: hidden text never verifies the answer (confidence none),
// the split word does (one_source), and reading a 4 MB page as a reader sees it — or 4,000 selectors with ancestors
// over deep nesting — holds no other request up.
import { measureCase } from './measure.mjs';
import { answer, normal, nextWorks } from './requests.mjs';

const SCRIPT = {
  attribute: ['Dynamism: static\nDomain: open'],
  calculator: ['NONE'],
  parametric: ["Answer: I don't know\nFalse premise: no"],
  reasoning: ['<reasoning>The page names the spring.</reasoning>\n<answer>Quendrith</answer>\n<false_premise>no</false_premise>'],
};

const prose = '<p>The Aldwater is a river in the northern hills. It flows east for 140 kilometres.</p>';
const says = (inner) => `<p>The Aldwater rises from the ${inner} spring.</p>`;

const cases = [
  ['page: answer only in display:none text (issue)', `<div style="display:none">${says('Quendrith')}</div>`],
  ['page: answer only under the hidden attribute (issue)', `<div hidden>${says('Quendrith')}</div>`],
  ['page: answer only in a <template> (issue)', `<template>${says('Quendrith')}</template>`],
  ['page: answer only in font-size:0 text (issue)', says('<span style="font-size:0">Quendrith</span>')],
  ["page: answer only under a rule of the page's own <style>", `<style>.n{visibility:hidden}</style><div class="n">${says('Quendrith')}</div>`],
  ['page: answer written Quen<b>dri</b>th, one word on screen (issue)', says('Quen<b>dri</b>th')],
  ['page: answer only in white text on white (issue 40)', `<div style="color:#fff;background:#fff">${says('Quendrith')}</div>`],
  ['page: answer only at opacity 0.01 (issue 40)', `<div style="opacity:0.01">${says('Quendrith')}</div>`],
  ['page: answer only moved off by translateX(-10000px) (issue 40)', `<div style="transform:translateX(-10000px)">${says('Quendrith')}</div>`],
  ['page: answer only in a zero-size <svg> (issue 40)', `<svg width="0" height="0"><text>${says('Quendrith')}</text></svg>`],
  ["page: answer only under the page's descendant, child and attribute rules (issue 40)", `<style>main .k > div[data-x]{display:none}</style><main><div class="k"><div data-x>${says('Quendrith')}</div></div></main>`],
  [
    'page: 4,000 selectors with ancestors over 200 nested elements, then the split word (issue 40)',
    `<style>${Array.from({ length: 4000 }, (_, i) => `div div div div div div div .n${i % 30}{display:none}`).join('')}</style>${'<div>'.repeat(200)}${'<p class="n1">x</p>'.repeat(5000)}${'</div>'.repeat(200)}${says('Quen<i>dri</i>th')}`,
  ],
  ['page: 4 MB, 20,000 hidden copies of the answer, then the split word', `${`<div style="display:none">${says('Quendrith')}${prose}</div>`.repeat(20_000)}${says('Quen<i>dri</i>th')}`],
];

const verdictOf = async (url, html) => {
  const res = await fetch(`${url}/v1/answer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ question: 'What is the name of the spring the Aldwater rises from?', variant: 'crag', mode: 'rag', options: { dynamicPolicy: 'answer' }, context: { pages: [{ url: 'https://example.org/aldwater', html: `<html><body>${prose}${html}</body></html>` }] } }),
  });
  const run = await res.json().catch(() => ({}));
  if (!res.ok) return `${res.status} ${run.error?.code ?? ''}`;
  const verified = (run.citations ?? []).filter((c) => c.verified).map((c) => c.key);
  return `${run.status}: ${JSON.stringify(run.answer)}, confidence ${run.confidence}${verified.length ? `, verified in ${verified.join(', ')}` : ''}`;
};

export const hiddenTextGroup = {
  run: async ({ url, pid, stub }) => {
    await stub.setScript(SCRIPT);
    await answer(url, { question: 'What is the capital of France?', mode: 'parametric' });
    const rows = [];
    for (const [name, html] of cases) {
      const m = await measureCase({ url, pid, reference: normal(url), work: () => verdictOf(url, html), next: nextWorks(url) });
      rows.push({ name, ...m, output: m.result });
      console.error(`  ${name}: ${m.answerMs.toFixed(0)} ms, /healthz ≤ ${m.healthMaxMs.toFixed(0)} ms: ${m.result}`);
    }
    await stub.setScript({});
    return rows;
  },
};
