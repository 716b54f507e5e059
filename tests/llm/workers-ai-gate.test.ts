import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { modelGates } from '../../src/llm/model-gate';
import { workersAIProvider } from '../../src/llm/workers-ai';
import type { GateNamespace } from '../../src/net/politeness/pass';

/**
 * Workers AI behind the model's politeness gate (the real PolitenessGate objects of the test Worker): at most
 * LLM_CONCURRENCY calls in flight across every caller, and an "Out of capacity" answer holds every caller back.
 */
const provider = (ai: unknown, vars: Record<string, string> = {}) =>
  workersAIProvider(ai as Ai, {
    model: `@cf/test/model-${crypto.randomUUID()}`,
    budget: { maxBytes: 1 << 20, timeoutMs: 10_000 },
    maxRetries: 2,
    gateFor: modelGates(loadConfig(vars), 'workers-ai', env.POLITENESS_GATE as unknown as GateNamespace),
  });

const ask = (llm: ReturnType<typeof provider>, notes: string[] = []) =>
  llm.chat({ purpose: 'agent', messages: [{ role: 'user', content: 'hi' }] }, { onWait: (note) => notes.push(note) });

describe('the politeness gate of a Workers AI model', () => {
  it('an out-of-capacity answer to one caller holds back the next caller too', async () => {
    const calls: string[] = [];
    let failNext = true;
    const ai = {
      run: async () => {
        calls.push(failNext ? 'refused' : 'answered');
        if (failNext) {
          failNext = false;
          throw new Error('3040: Out of capacity');
        }
        return { response: 'ok' };
      },
    };
    const llm = provider(ai);
    const first = ask(llm);
    while (!calls.length) await new Promise((r) => setTimeout(r, 5));
    const notes: string[] = [];
    const second = await ask(llm, notes);
    expect((await first).text).toBe('ok');
    expect(second.text).toBe('ok');
    expect(calls).toEqual(['refused', 'answered', 'answered']);
    expect(notes.join('\n')).toMatch(/politeness gate of workers-ai \(model @cf\/test\/model-[^)]+\): the host asked every client to wait \(Workers AI is out of capacity \(3040\)\)/);
  });

  it('never has more calls in flight than LLM_CONCURRENCY', async () => {
    let inflight = 0;
    let peak = 0;
    const ai = {
      run: async () => {
        peak = Math.max(peak, ++inflight);
        await new Promise((r) => setTimeout(r, 40));
        inflight--;
        return { response: 'ok' };
      },
    };
    const llm = provider(ai, { LLM_CONCURRENCY: '2' });
    const answers = await Promise.all(Array.from({ length: 6 }, () => ask(llm)));
    expect(answers.map((a) => a.text)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
    expect(peak).toBe(2);
  });

  it('POLITENESS=off leaves the calls ungated', () => {
    expect(modelGates(loadConfig({ POLITENESS: 'off' }), 'workers-ai', env.POLITENESS_GATE as unknown as GateNamespace)).toBeUndefined();
  });
});
