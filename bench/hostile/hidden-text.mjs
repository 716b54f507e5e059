// Issue 33 group of bench/hostile, `hidden-text`: rag runs over a page that holds the answer only where a reader does
// not see it (display:none, the hidden attribute, <template>, a zero-size font, a rule of the page's own <style>), or
// written across inline tags (`Quen<b>dri</b>th`, one word on screen). The model (the stub) always answers
// "Quendrith". What it shows: hidden text never verifies the answer (confidence none), the split word does
// (one_source), and reading a 4 MB page as a reader sees it holds no other request up.
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
