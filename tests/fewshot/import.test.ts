import { describe, expect, it } from 'vitest';
import { bundledLibraryNames, loadLibrary } from '../../src/fewshot';
import { importHqaJson } from '../../src/fewshot/import-hqa';
import { scriptedLLM } from '../../src/llm/scripted';
import { createAgentStrategy } from '../../src/strategies/hqa';
import { hqaTools } from '../../src/tools';
import { driveStrategy } from '../helpers/drive';
import { ofType, snapshotServices } from '../hqa/fixtures';
import sample from './fixtures/hqa-sample.json';
import { checkImportedFile } from './imported-check';

/**
 * `npm run fewshot:import -- --format hqa-json` on a small file this team wrote in the shape of the HQA authors'
 * `app/data/*.json` (their own text is not in this repository).
 */
const imported = importHqaJson(sample, 'hqa-sample');

describe('importing the authors\' human libraries (hqa-json)', () => {
  it('converts each record to a process in our protocol, mapping their tool names and inputs to ours', () => {
    expect(imported.processes.map((p) => p.file)).toEqual(['01-in-which-city-was-the-director.txt', '02-how-long-is-the-danube.txt']);
    const [first, second] = imported.processes.map((p) => p.process);
    expect(first.toolSequence).toEqual(['wikisearch', 'getWikidataID', 'generateQuery', 'runQuery', 'getLabel']);
    expect(second.toolSequence).toEqual(['read', 'getWikidataID']);
    // Python's doubled braces are undone; list inputs become what our tools read.
    expect(first.steps[3].actionInput).toBe('SELECT ?x1 WHERE { wd:Q187364 wdt:P19 ?x1 . }');
    expect(first.steps[1].actionInput).toBe('Robert Zemeckis');
    expect(first.steps[4].actionInput).toBe('Q1297');
    expect(second.steps[0].actionInput).toBe('Danube');
    expect(second.steps[1].actionInput).toBe('Danube | Black Sea');
    // Observations stay as recorded (they came from the live world).
    expect(first.steps[3].observation).toBe("[{'value': 'http://www.wikidata.org/entity/Q1297'}]");
    // Their final line is kept: our parser reads it as the per-source declarations.
    expect(first.finalAnswer).toBe(
      'Wikipedia_Answer:None, Wikidata_Answer: [Chicago]\nAssistant Response: Wikipedia names Robert Zemeckis as the director, and Wikidata gives Chicago as his place of birth.',
    );
    // A step without a thought gets a neutral one, since our format needs it.
    expect(second.steps[1].thought).toBe('Next I use a tool.');
    // Their Action_Sequence is compared with the actions in One_Shot.
    expect(imported.processes[1].sequenceMismatch).toBe(true);
  });

  it('skips a record it cannot map, saying why, and refuses what is not their format', () => {
    expect(imported.skipped).toEqual([{ index: 2, question: 'Who founded the city of Rome?', reason: expect.stringMatching(/unknown tool "BingSearch"/) }]);
    expect(() => importHqaJson({ Question: 'x' }, 'x')).toThrow(/JSON array/);
    expect(importHqaJson([{ Question: 'q' }, 'text', { Question: 'q', One_Shot: 'Question: q\nThought: t\nFinal Answer: a' }], 'x').skipped.map((s) => s.reason)).toEqual([
      'no "One_Shot" string',
      'not an object',
      'no tool step',
    ]);
  });

  it('passes the replay check for imported libraries (format and tool names), which catches what would mis-teach', () => {
    for (const p of imported.processes) expect(checkImportedFile(`fewshot/hqa-sample/${p.file}`, p.text).problems).toEqual([]);
    const broken = imported.processes[0].text.replace('Action: getLabel\nAction Input: Q1297', 'Action: getLabel\nAction Input: no ids here');
    expect(checkImportedFile('fewshot/hqa-sample/01-x.txt', broken).problems).toEqual([expect.stringMatching(/step 5 \(getLabel\): the tool rejects the Action Input/)]);
    expect(checkImportedFile('fewshot/hqa-sample/01-x.txt', broken.replace('Action: getLabel', 'Action: GetLabel')).problems[0]).toMatch(/unknown tool "GetLabel"/);
  });

  it('a library in the bundle is found by name, so an imported one can be selected', () => {
    const files = imported.processes.map((p) => ({ file: `fewshot/hqa-sample/${p.file}`, text: p.text }));
    expect(bundledLibraryNames([...files, { file: 'fewshot/hybridqa/01-x.txt', text: '' }])).toEqual(['hqa-sample']);
    expect(loadLibrary('hqa-sample', files).map((p) => p.id)).toEqual(['hqa-sample/01-in-which-city-was-the-director', 'hqa-sample/02-how-long-is-the-danube']);
  });

  it('drives a scripted agent run selected with options.library', async () => {
    const asked: string[] = [];
    const agent = createAgentStrategy({
      mode: 'agent',
      description: 'test',
      library: (name) => {
        asked.push(name);
        return imported.processes.map((p) => p.process);
      },
    });
    const llm = scriptedLLM({
      agent: [' I need the id.\nAction: getWikidataID\nAction Input: Robert Zemeckis', 'Final Answer: Wikipedia_Answer: None, Wikidata_Answer: [Chicago]\nAssistant Response: From Wikidata.'],
      parametric: ['Chicago'],
      final: ['Chicago'],
    });
    const { events } = await driveStrategy(agent, {
      request: { question: 'Where was Robert Zemeckis born?', options: { library: 'hqa-sample', recipe: 'paper', fewshot: 'relevance', k: 2 } },
      llm,
      services: snapshotServices(),
      tools: hqaTools(),
    });
    expect(asked).toEqual(['hqa-sample']);
    const prompt = String(llm.requests.find((r) => r.purpose === 'agent')!.messages[1].content);
    expect(prompt).toMatch(/Example 1:\nQuestion: (In which city was the director of Forrest Gump born\?|How long is the Danube\?)/);
    expect(prompt).toMatch(/Action: getWikidataID\nAction Input: Robert Zemeckis\nObservation: \['Q187364'\]/);
    expect(ofType(events, 'observation')[0].output).toBe('Robert Zemeckis: Q187364');
    expect(ofType(events, 'answer')[0]).toMatchObject({ answer: 'Chicago', answers: { wikidata: 'Chicago', parametric: 'Chicago' } });

    // FEWSHOT_LIBRARY picks the library for a deployment; options.library still wins per request.
    const byVar = (options: Record<string, unknown>) =>
      driveStrategy(agent, {
        request: { question: 'q', options: { ...options, fewshot: 'zero-shot' } },
        llm: scriptedLLM({ agent: ['Final Answer: x'], parametric: ['x'], final: ['x'] }),
        services: snapshotServices(),
        tools: hqaTools(),
        env: { FEWSHOT_LIBRARY: 'hqa-deployed' },
      });
    await byVar({});
    await byVar({ library: 'hqa-sample' });
    expect(asked.slice(1)).toEqual(['hqa-deployed', 'hqa-sample']);
  });

  it('an unknown library name fails the run with the names that exist', async () => {
    const agent = createAgentStrategy({ mode: 'agent', description: 'test' });
    const run = driveStrategy(agent, { request: { question: 'q', options: { library: 'no-such-library' } }, llm: scriptedLLM({}), services: snapshotServices(), tools: hqaTools() });
    await expect(run).rejects.toThrow(/options.library must name a bundled few-shot library: .*mintaka/);
    const bad = driveStrategy(agent, { request: { question: 'q', options: { library: '../etc' } }, llm: scriptedLLM({}), services: snapshotServices(), tools: hqaTools() });
    await expect(bad).rejects.toThrow(/options.library must name a few-shot library folder/);
  });
});
