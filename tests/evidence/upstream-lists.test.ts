import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { installTestVars } from '../../src/config-test-vars';
import { installScript } from '../../src/llm/scripted';
import type { ChatRequest } from '../../src/llm/types';
import { createMediaWikiStandIn, createWdqsStandIn } from '../support/wikimedia-standins.mjs';
import { get, post } from '../engine/helpers';
import { answerWikimediaHosts } from './wikimedia-hosts';

/**
 * Issue 33, item 10: a mirror that answers more than was asked. Wikimedia's public hosts (the test build's defaults)
 * are answered by the stand-ins through a fetch spy; each run's agent takes one action and then answers.
 */
const standIns = (options: { wdqs?: Parameters<typeof createWdqsStandIn>[0]; wiki?: Parameters<typeof createMediaWikiStandIn>[0] }) => {
  const wdqs = createWdqsStandIn(options.wdqs);
  const wiki = createMediaWikiStandIn(options.wiki);
  const wikidataApi = createMediaWikiStandIn(options.wiki);
  answerWikimediaHosts({ wdqs, wikipedia: wiki, wikidataApi });
};

const runWithAction = async (question: string, action: string) => {
  installScript({
    default: Array.from({ length: 10 }, () => (request: ChatRequest) => {
      const prompt = String(request.messages[request.messages.length - 1].content);
      if (request.purpose !== 'agent') return 'Berlin';
      return prompt.includes('Observation:') ? ' Seen.\nFinal Answer: Berlin' : ` I look.\nAction: ${action}`;
    }),
  });
  const run = await (await post('/v1/answer', { question, mode: 'agent', options: { fewshot: 'zero-shot' } }, { accept: 'application/json' })).json<any>();
  const observation = run.steps.find((s: any) => s.type === 'observation');
  expect(observation, JSON.stringify(run.steps)).toBeDefined();
  return String(observation.output);
};

// Every run here reads live evidence, from the stand-ins.
beforeEach(() => installTestVars({ EVIDENCE: 'live' }));
afterEach(() => {
  vi.restoreAllMocks();
  installTestVars();
});
beforeAll(() => get('/healthz'), 120_000);

describe('lists from upstream are cut to what was asked before they reach an observation', () => {
  it('a search answered with 10,000 hits to srlimit=5 makes an observation of five hits', async () => {
    standIns({ wiki: { searchHits: 10_000 } });
    const output = await runWithAction('Which city is the capital of Germany?', 'wikisearch\nAction Input: capital of Germany');
    const lines = output.split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[4]).toMatch(/^5\. capital of Germany \(topic 5\)/);
  });

  it('a query service that ignores LIMIT 5 and answers 20,000 rows makes an observation of five rows', async () => {
    standIns({ wdqs: { rows: 20_000 } });
    const output = await runWithAction('Which places are in Germany?', 'runQuery\nAction Input: SELECT ?x WHERE { ?x wdt:P17 wd:Q183 . } LIMIT 5');
    const lines = output.split('\n');
    // The header, five rows and the count.
    expect(lines).toHaveLength(7);
    expect(lines.at(-1)).toBe('(5 rows)');
  });

  it('an entity API that adds 10,000 entities nobody asked for gives only the one asked', async () => {
    standIns({ wiki: { extraEntities: 10_000 } });
    const output = await runWithAction('What is Q64?', 'getLabel\nAction Input: Q64');
    expect(output).toContain('Entity Q64');
    expect(output).not.toContain('Q900000');
    expect(output.split('\n').length).toBeLessThanOrEqual(2);
  });
});
