import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { localEmbedder } from '../../src/embeddings';
import { createEvidence } from '../../src/evidence';
import { checkQuery } from '../../src/evidence/sparql/safety';
import { tokenize } from '../../src/evidence/sparql/tokenize';
import { bundledLibraryNames, parseProcess, type SolutionProcess } from '../../src/fewshot/library';
import { bundle, type BundledFile } from '../../src/generated/bundle';
import { scriptedLLM } from '../../src/llm/scripted';
import { extractQuery } from '../../src/tools/generate-query';
import { hqaTools } from '../../src/tools';
import { toolRegistry, type ToolContext } from '../../src/tools/types';
import { checkImportedFile } from './imported-check';

/**
 * Replays every few-shot solution process of the HQA libraries against the bundled snapshot with the real tools.
 * The files are prompts: an observation the tools would never produce teaches the model a world that is not there.
 * Deterministic tools must reproduce the observation exactly; `read` and `generateQuery` need a model, so for them we
 * check what can be checked offline (the page exists and is cited; the query is allowed and runs).
 */

// The agent-protocol libraries (hybridqa holds HProPro programs in another format).
const LIBRARIES = ['mintaka', 'qald9plus', 'compmix'] as const;
// Every library is complete: each is held to exactly this many files, so a lost or extra file fails the suite.
const PROCESSES_PER_LIBRARY = 20;
const DETERMINISTIC = new Set(['wikisearch', 'getWikidataID', 'runQuery', 'getLabel']);

const tools = toolRegistry(hqaTools());
const evidence = createEvidence(loadConfig({}), { DB: env.DB });
// No model: a deterministic tool that tried to call one would fail loudly here.
const ctx: ToolContext = { llm: scriptedLLM({}), evidence, embedder: localEmbedder() };

const filesOf = (library: string): BundledFile[] =>
  bundle.fewshot
    .map((f) => ({ ...f, file: f.file.replace(/\\/g, '/') }))
    .filter((f) => f.file.startsWith(`fewshot/${library}/`) && f.file.endsWith('.txt'))
    .sort((a, b) => (a.file < b.file ? -1 : 1));

/** Line number of the n-th `Action:` line, so a failure points into the file. */
const actionLine = (text: string, stepIndex: number): number => {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  let seen = -1;
  for (let i = 0; i < lines.length; i++) {
    if (/^Action: /.test(lines[i]) && ++seen === stepIndex) return i + 1;
  }
  return 0;
};

/** What the run engine shows for a tool call (src/engine/context.ts): the output, or `Error: …` when the tool throws. */
const runTool = async (name: string, parsed: unknown): Promise<string> => {
  try {
    return await tools.get(name)!.execute(ctx, parsed);
  } catch (err) {
    return `Error: ${err instanceof Error ? err.message : String(err)}`;
  }
};

const parseFile = (f: BundledFile): SolutionProcess => {
  try {
    return parseProcess(f.text, f.file);
  } catch (err) {
    // ProcessParseError reads "<library>/<name>:<line>: detail"; point at the real file instead.
    const detail = err instanceof Error ? err.message.replace(/^[^:]+:(\d+): /, `${f.file}:$1: `) : String(err);
    throw new Error(detail);
  }
};

const replay = async (f: BundledFile) => {
  const process = parseFile(f);
  for (const [i, step] of process.steps.entries()) {
    const where = `${f.file}:${actionLine(f.text, i)} step ${i + 1} (${step.action})`;
    const tool = tools.get(step.action);
    expect(tool, `${where}: unknown tool`).toBeDefined();
    if (!tool) continue;
    let parsed: unknown;
    try {
      parsed = tool.fromText(step.actionInput);
    } catch (err) {
      expect.fail(`${where}: the tool rejects the Action Input: ${err instanceof Error ? err.message : String(err)}`);
    }
    const written = step.observation.trim();

    if (DETERMINISTIC.has(step.action)) {
      const actual = (await runTool(step.action, parsed)).trim();
      expect.soft(written, `${where}: the observation differs from the tool output (expected = real output)`).toBe(actual);
    } else if (step.action === 'read') {
      const { title } = parsed as { title: string };
      const page = await evidence.page(title);
      expect.soft(page, `${where}: no page titled "${title}" in the snapshot`).not.toBeNull();
      if (page) {
        expect.soft(written, `${where}: a read observation ends with the citation the tool appends`).toMatch(
          new RegExp(`\\(source: ${escapeRe(page.title)}, ${escapeRe(page.url)}\\)$`),
        );
      }
    } else if (step.action === 'generateQuery') {
      const query = extractQuery(written);
      let refusal = '';
      try {
        checkQuery(tokenize(query));
      } catch (err) {
        refusal = err instanceof Error ? err.message : String(err);
      }
      expect.soft(refusal, `${where}: runQuery would refuse the generated query`).toBe('');
      if (!refusal) {
        const ran = await evidence.sparql(query).then(
          () => 'ok',
          (err: unknown) => `Error: ${err instanceof Error ? err.message : String(err)}`,
        );
        expect.soft(ran, `${where}: the generated query does not run`).toBe('ok');
      }
    }
  }
  return process;
};

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

for (const library of LIBRARIES) {
  const files = filesOf(library);
  describe(`few-shot library ${library}`, () => {
    it(`has exactly ${PROCESSES_PER_LIBRARY} processes named NN-slug.txt, 01 to ${PROCESSES_PER_LIBRARY}`, () => {
      const names = files.map((f) => f.file.slice(`fewshot/${library}/`.length));
      expect(names).toHaveLength(PROCESSES_PER_LIBRARY);
      expect(names.map((n) => n.slice(0, 2))).toEqual(
        Array.from({ length: PROCESSES_PER_LIBRARY }, (_, i) => String(i + 1).padStart(2, '0')),
      );
      for (const n of names) expect(n).toMatch(/^\d\d-[a-z0-9]+(?:-[a-z0-9]+)*\.txt$/);
    });

    for (const f of files) {
      it(`${f.file} parses and replays against the snapshot`, async () => {
        const process = await replay(f);
        expect(process.finalAnswer.trim()).not.toBe('');
      });
    }

    it('asks each question only once', () => {
      const questions = files.map((f) => parseFile(f).question.trim().toLowerCase());
      expect(new Set(questions).size).toBe(questions.length);
    });
  });
}

/**
 * Libraries imported with `npm run fewshot:import` (a `library.json` manifest beside the files). Their observations came
 * from the live world, so they are checked for format and tool names only (see imported-check.ts), and against their
 * manifest. None is committed: they appear here when a user has imported one into this checkout.
 */
const manifests = new Map(
  (bundle.fewshotMeta ?? []).map((f) => [f.file.replace(/\\/g, '/').replace(/^fewshot\/([^/]+)\/library\.json$/, '$1'), JSON.parse(f.text) as { format: string; processes: number }]),
);
for (const library of bundledLibraryNames().filter((n) => !(LIBRARIES as readonly string[]).includes(n) && manifests.has(n))) {
  const files = filesOf(library);
  describe(`imported few-shot library ${library} (${manifests.get(library)!.format}; format and tool names only)`, () => {
    it('holds the processes its manifest lists', () => {
      expect(files).toHaveLength(manifests.get(library)!.processes);
    });
    for (const f of files) {
      it(`${f.file} parses and names only our tools, with inputs they accept`, () => {
        expect(checkImportedFile(f.file, f.text).problems).toEqual([]);
      });
    }
  });
}
