import { DATA_FENCE_RULE, fence, oneLine } from '../../text/prompt-data';
import type { RunContext } from '../../engine/types';
import type { ContentPart } from '../../llm/types';
import type { HostFunction, Json } from '../../sandbox/types';
import { CHECK_OPS, compareInCode, type CheckOp } from './compare';
import type { ProgramContext } from './input';
import type { ProgramOptions } from './options';
import type { Recipe } from '../../engine/recipe';
import { PROGRAM_RECIPES } from './recipes';
import checkPaperPrompt from './prompts/check-paper.txt';
import checkPrompt from './prompts/check.txt';
import extractPaperPrompt from './prompts/extract-info-paper.txt';
import extractPrompt from './prompts/extract-info.txt';

const MAX_PASSAGE_CHARS = 6_000;

/** A value the program passes for a cell: a cell object, its text, or a link. */
const cellText = (v: Json): string =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && typeof v.text === 'string' ? v.text : typeof v === 'string' ? v : JSON.stringify(v);

/** The links a program's cell argument points at: its own links, or those of cells with the same text, or itself as a link. */
export const linksOf = (v: Json, input: ProgramContext): string[] => {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && Array.isArray(v.links) && v.links.length) {
    return v.links.filter((l): l is string => typeof l === 'string');
  }
  const text = cellText(v).trim();
  if (text in input.passages || (input.images && text in input.images)) return [text];
  const links = input.table.rows.flat().filter((c) => c.text.trim() === text).flatMap((c) => c.links ?? []);
  return [...new Set(links)];
};

const firstLine = (text: string) => text.trim().split('\n')[0].replace(/^(answer|value)\s*:\s*/i, '').trim();

/** What a program (and the eval report, which counts these) sees when only an image holds the answer and no model can see. */
export const IMAGE_UNREADABLE = 'not available: the image could not be read';

const imageUnreadable = (cell: string) =>
  `${IMAGE_UNREADABLE} (linked to "${cell}"): no vision model is configured; set LLM_MODEL_VISION to a model that accepts images`;

/** The paper's reply ends "So my answer is X."; anything else counts as not found. */
const paperAnswer = (text: string) => {
  const m = [...text.matchAll(/so my answer is\s+(.+?)\s*\.?\s*$/gim)].at(-1);
  return m ? m[1].trim() : 'not available';
};

/**
 * `extract_info(cell, target)`: the model reads the cell's passages (or image) and returns one value. Ours asks
 * for the value alone; the paper's prompt lets the model reason first and closes with "So my answer is …".
 */
const extractInfo = (ctx: RunContext, input: ProgramContext, recipe: Recipe): HostFunction => async (cell, target) => {
  const what = typeof target === 'string' ? target : JSON.stringify(target);
  const links = linksOf(cell, input);
  const passages = links.filter((l) => l in input.passages).map((l) => input.passages[l]);
  const images = links.map((l) => input.images?.[l]).filter((u): u is string => !!u);
  if (!passages.length && !images.length) return `not available: no passage is linked to "${cellText(cell)}"`;
  if (!passages.length && !ctx.llm.acceptsImages) return imageUnreadable(cellText(cell));
  const text = passages.join('\n\n').slice(0, MAX_PASSAGE_CHARS);
  // Cell, passage and target all come from the table or the generated program: fenced as data.
  const ask = `Cell: ${oneLine(cellText(cell))}\n\n${fence('TEXT', text || '(see the image)')}\n\nInformation wanted: ${oneLine(what)}`;
  const withImages = ctx.llm.acceptsImages && images.length > 0;
  const content: string | ContentPart[] = withImages
    ? [{ type: 'text', text: ask }, ...images.map((url): ContentPart => ({ type: 'image_url', image_url: { url } }))]
    : ask;
  const { published, maxTokens } = PROGRAM_RECIPES[recipe].extract;
  // Image reads have their own purpose, so LLM_MODEL_VISION serves them and usage counts them apart.
  const reply = await ctx.llm.chat({
    purpose: withImages ? 'vision' : 'extract_info',
    messages: [
      { role: 'system', content: `${(published ? extractPaperPrompt : extractPrompt).trim()}\n\n${DATA_FENCE_RULE}` },
      { role: 'user', content },
    ],
    maxTokens,
  });
  return (published ? paperAnswer(reply.text) : firstLine(reply.text)) || 'not available';
};

/**
 * `check(a, b, op)`. Ours: numbers and dates are decided in code, anything else asks the model for true or false.
 * The paper's: every comparison goes to a (cheaper) model with a few worked examples.
 */
export const checkValues = (ctx: Pick<RunContext, 'llm'>, recipe: Recipe = 'ours'): HostFunction => async (a, b, op) => {
  const operator = (typeof op === 'string' ? op.trim() : '==') as CheckOp;
  if (!CHECK_OPS.includes(operator)) throw new Error(`unknown operator ${JSON.stringify(op)}; use one of ${CHECK_OPS.join(' ')}`);
  const left = cellText(a);
  const right = cellText(b);
  if (!PROGRAM_RECIPES[recipe].checkInCodeFirst) {
    const reply = await ctx.llm.chat({
      purpose: 'check',
      messages: [
        { role: 'system', content: checkPaperPrompt.trim() },
        { role: 'user', content: `Q: ${oneLine(left)} ${operator} ${oneLine(right)}\nCheck:` },
      ],
      maxTokens: 4,
    });
    return /^\W*(true|yes)\b/i.test(reply.text.trim());
  }
  const decided = compareInCode(left, right, operator);
  if (decided !== undefined) return decided;
  const reply = await ctx.llm.chat({
    purpose: 'check',
    messages: [
      { role: 'system', content: checkPrompt.trim() },
      { role: 'user', content: `Is this true?\nA: ${oneLine(left)}\nB: ${oneLine(right)}\nComparison: A ${operator} B` },
    ],
    maxTokens: 4,
  });
  return /^\W*(true|yes)\b/i.test(reply.text.trim());
};

export const hostFunctionsFor = (ctx: RunContext<ProgramOptions>, input: ProgramContext): Record<string, HostFunction> => ({
  extract_info: extractInfo(ctx, input, ctx.options.recipe),
  check: checkValues(ctx, ctx.options.recipe),
});
