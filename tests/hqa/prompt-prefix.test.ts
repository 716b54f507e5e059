import { beforeAll, describe, expect, it } from 'vitest';
import { installScript } from '../../src/llm/scripted';
import { promptText } from '../../src/engine/prompt-reuse';
import { get, post, readSse } from '../engine/helpers';

/**
 * Prompts a provider can cache (issue 25): each agent step's prompt extends the previous step's, so the part a
 * prefix cache can serve is nearly all of it; the run's usage reports that share per purpose.
 */
const QUESTION = 'In which city was the director of Forrest Gump born?';

// The Worker's first start (its bundle, the snapshot) can take long on a busy machine.
beforeAll(() => get('/healthz'), 120_000);

describe('agent prompts as prefixes of each other', () => {
  it('step n+1 starts with step n\'s prompt, and usage reports a share of at least 0.9 for the agent steps after the first', async () => {
    const llm = installScript({
      agent: [
        ' Find the director.\nAction: wikisearch\nAction Input: Forrest Gump',
        ' His item.\nAction: getWikidataID\nAction Input: Robert Zemeckis',
        ' His birthplace.\nAction: runQuery\nAction Input: SELECT ?place WHERE { wd:Q187364 wdt:P19 ?place . }',
        ' Check the page.\nAction: read\nAction Input: Robert Zemeckis # Where was he born?',
        ' Both say Chicago.\nFinal Answer: Chicago',
      ],
      read: ['He was born in Chicago, Illinois.'],
      parametric: ['Chicago'],
    });
    const events = await readSse(await post('/v1/answer', { question: QUESTION, mode: 'agent' }, { accept: 'text/event-stream' }));
    const done = events.at(-1)!.data;
    expect(done.status).toBe('succeeded');

    const prompts = llm.requests.filter((r) => r.purpose === 'agent').map((r) => promptText(r.messages));
    expect(prompts).toHaveLength(5);
    // Everything but the closing "Thought:" turn marker's continuation is repeated: the old prompt is a prefix of the new.
    for (let i = 1; i < prompts.length; i++) expect(prompts[i].startsWith(prompts[i - 1].replace(/\n$/, ''))).toBe(true);

    const reuse = done.usage.promptReuse.agent;
    expect(reuse.calls).toBe(4);
    expect(reuse.share).toBeGreaterThanOrEqual(0.9);
    expect(reuse.repeatedChars).toBeLessThanOrEqual(reuse.chars);
  }, 60_000);
});
