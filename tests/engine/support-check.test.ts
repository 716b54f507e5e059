import { describe, expect, it } from 'vitest';
import { exports } from 'cloudflare:workers';
import { verifyVerdicts } from '../../src/engine/attribution/verify-reply';
import { installScript } from '../../src/llm/scripted';
import { CHICAGO_QUESTION, chicagoAgentScript } from '../hqa/fixtures';
import { fence, marathonContext } from '../program/fixture';
import { get, post } from './helpers';

// Issue 40: options.supportCheck "model" asks a model (purpose verify) to judge each citation's answer–quote pair,
// once per answer, records the verdicts with the run's evidence and replays them without the model.
const verdicts = (support: 'supports' | 'mentions', pairs = 8) => JSON.stringify({ verdicts: Array.from({ length: pairs }, (_, i) => ({ pair: i + 1, support })) });

const ask = async (options: Record<string, unknown>) => (await post('/v1/answer', { question: CHICAGO_QUESTION, mode: 'agent', options: { fewshot: 'zero-shot', ...options } })).json<any>();

const uploadArchive = (text: string) =>
  exports.default.fetch('http://localhost/v1/archives', { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: text });

const notesOf = (run: any): string[] => run.steps.flatMap((s: any) => s.notes ?? []);
const verifyStep = (run: any) => run.steps.find((s: any) => s.type === 'observation' && s.tool === 'verify');

describe('options.supportCheck: "model"', () => {
  it('makes one verify call for the answer, and its verdicts grade the citations in place of the structural ones', async () => {
    // Structurally the Wikidata row supports Chicago (the film's hit names the director the run linked).
    installScript(chicagoAgentScript());
    const structural = await ask({});
    expect(structural).toMatchObject({ status: 'succeeded', confidence: 'one_source', agreementSources: ['wikidata'] });
    // The query row supports it; the label look-up only names Chicago.
    expect(structural.citations).toContainEqual(expect.objectContaining({ source: 'wikidata', quote: 'place: Q1297 (Chicago)', support: 'supports' }));
    expect(structural.citations).toContainEqual(expect.objectContaining({ source: 'wikidata', key: 'evidence labels [["Q1297"]]', support: 'mentions' }));
    expect(structural.citations.some((c: any) => c.supportBy)).toBe(false);
    expect(structural.usage.byPurpose.verify).toBeUndefined();

    const llm = installScript({ ...chicagoAgentScript(), verify: [verdicts('mentions')] });
    const judged = await ask({ supportCheck: 'model' });
    const calls = llm.requests.filter((r) => r.purpose === 'verify');
    expect(calls).toHaveLength(1);
    expect(judged.usage.byPurpose.verify).toMatchObject({ calls: 1 });
    // The pairs went out fenced: the question, each answer and each quote as data.
    const prompt = String(calls[0].messages[1].content);
    expect(prompt).toContain(`<<<QUESTION\n${CHICAGO_QUESTION}\nQUESTION>>>`);
    expect(prompt).toMatch(/Pair 1\n<<<ANSWER\nChicago\nANSWER>>>\n<<<PASSAGE\nplace: Q1297 \(Chicago\)\nPASSAGE>>>/);
    expect(String(calls[0].messages[0].content)).toContain('is data');
    // The model says the row only mentions Chicago: no source supports the answer any more.
    expect(judged).toMatchObject({ status: 'succeeded', answer: 'Chicago', confidence: 'none', agreementSources: [] });
    const graded = judged.citations.filter((c: any) => c.verified);
    expect(graded.length).toBeGreaterThan(0);
    for (const c of graded) expect(c).toMatchObject({ support: 'mentions', supportBy: 'model' });
    // The trace shows the check just before the answer.
    const kinds = judged.steps.map((s: any) => (s.tool ? `${s.type}:${s.tool}` : s.type));
    expect(kinds.slice(-3)).toEqual(['action:verify', 'observation:verify', 'answer']);
    // The verdicts are part of the run's evidence, under each pair's SHA-256.
    const archive = await (await get(`/v1/runs/${judged.runId}/evidence`)).text();
    const lines = archive.trim().split('\n').slice(1).map((l) => JSON.parse(l));
    const recorded = lines.filter((l) => l.request.source === 'verify');
    // One verdict per pair (the agent's own answer cites the same row as Wikidata's).
    expect(recorded).toHaveLength(new Set(graded.map((c: any) => c.quote)).size);
    for (const l of recorded) {
      expect(l.key).toMatch(/^verify [0-9a-f]{64}$/);
      expect(l.response.body).toMatchObject({ support: 'mentions', question: CHICAGO_QUESTION, answer: 'Chicago' });
    }
  });

  it('replays the verdicts from the run’s archive without asking the model', async () => {
    installScript({ ...chicagoAgentScript(), verify: [verdicts('mentions')] });
    const recorded = await ask({ supportCheck: 'model' });
    const archive = await (await get(`/v1/runs/${recorded.runId}/evidence`)).text();
    const upload = await uploadArchive(archive);
    expect(upload.status).toBe(201);
    const { archiveId } = await upload.json<any>();

    // No verify reply is scripted: a call would fail (and be noted), so the run must not make one.
    const llm = installScript(chicagoAgentScript());
    const replayed = await ask({ supportCheck: 'model', evidence: { replay: archiveId } });
    expect(llm.requests.filter((r) => r.purpose === 'verify')).toHaveLength(0);
    expect(replayed.usage.byPurpose.verify).toBeUndefined();
    expect(replayed).toMatchObject({ status: 'succeeded', confidence: 'none', agreementSources: [], replay: { archiveId, misses: 0 } });
    expect(replayed.citations).toEqual(recorded.citations);
    expect(notesOf(replayed).filter((n) => n.startsWith('support check'))).toEqual([]);
    expect(verifyStep(replayed).output).toMatch(/^1\. mentions: "Chicago"/);
  });

  it('keeps the structural grade when the verify reply is not in the expected form, and says so', async () => {
    installScript(chicagoAgentScript());
    const structural = await ask({});
    for (const reply of ['They all support the answer.', '{"verdicts": [{"pair": 1, "support": "maybe"}]}', '{"verdicts": "supports"}']) {
      const llm = installScript({ ...chicagoAgentScript(), verify: [reply] });
      const run = await ask({ supportCheck: 'model' });
      expect(llm.requests.filter((r) => r.purpose === 'verify')).toHaveLength(1);
      expect(run).toMatchObject({ status: 'succeeded', confidence: 'one_source', agreementSources: ['wikidata'] });
      expect(run.citations).toEqual(structural.citations);
      expect(verifyStep(run)).toMatchObject({ error: true, output: expect.stringMatching(/^the verify reply was not in the expected form; the citations keep their structural grade\n1\. no verdict/) });
    }
  });

  it('is a structured step: under the native protocol the reply schema goes with the verify call', async () => {
    const program = 'function solve(table) {\n  return table.rows.find((r) => r[\'Winner\'].text === \'Kari Vold\')[\'Time\'].text;\n}';
    const llm = installScript({ code: [fence(program)], verify: [verdicts('mentions', 1)] });
    const res = await post('/v1/answer', {
      question: 'What was the winning time of Kari Vold?',
      variant: 'hybridqa',
      mode: 'program',
      context: marathonContext,
      options: { simplify: false, supportCheck: 'model', toolProtocol: 'native' },
    });
    const run = await res.json<any>();
    const [call] = llm.requests.filter((r) => r.purpose === 'verify');
    expect(call.responseFormat).toMatchObject({ name: 'support_verdicts' });
    expect(JSON.stringify(call.responseFormat!.schema)).toContain('"supports"');
    // The program read the cell, so the structure says supports; the model's verdict says otherwise, and wins.
    expect(run).toMatchObject({ status: 'succeeded', answer: '2:21:10', confidence: 'none' });
    expect(run.citations.find((c: any) => c.verified)).toMatchObject({ support: 'mentions', supportBy: 'model' });
  });

  it('refuses a supportCheck it does not know before a run starts', async () => {
    const res = await post('/v1/answer', { question: CHICAGO_QUESTION, mode: 'agent', options: { supportCheck: 'oracle' } });
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.message).toContain('options.supportCheck must be "structure" or "model"');
  });
});

describe('the verify reply', () => {
  it('is read against its schema: verdicts by pair number, first one wins, out-of-range pairs dropped', () => {
    expect(verifyVerdicts('```json\n{"verdicts":[{"pair":2,"support":"supports"},{"pair":1,"support":"mentions"},{"pair":2,"support":"mentions"},{"pair":9,"support":"supports"}]}\n```', 2)).toEqual(
      new Map([
        [2, 'supports'],
        [1, 'mentions'],
      ]),
    );
    expect(verifyVerdicts('no JSON here', 1)).toBeUndefined();
    expect(verifyVerdicts('{"verdicts":[{"pair":0,"support":"supports"}]}', 1)).toBeUndefined();
    expect(verifyVerdicts('{"verdicts":[{"pair":1,"support":"yes"}]}', 1)).toBeUndefined();
  });
});
