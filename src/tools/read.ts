import { DATA_FENCE_RULE, fence, oneLine } from '../text/prompt-data';
import * as z from 'zod';
import readPrompt from './prompts/read.txt';
import { chunkPage, pickChunks } from './page-chunks';
import { clip, field, firstInput, jsonIn, unwrap } from './parse-input';
import type { Tool } from './types';

const input = z.object({
  title: z.string().trim().min(1, 'read needs a page title').max(300).meta({ description: 'the exact Wikipedia page title, as wikisearch returns it' }),
  question: z.string().trim().max(1000).optional().meta({ description: 'what to find out on that page; without it, what the page is about' }),
});
type Input = z.infer<typeof input>;

/** About 1,500 tokens of page text per call, so a read stays cheap on small models. */
const BUDGET_CHARS = 6_000;

/** `read(title, question)`: the model answers from the page's best chunks and the answer cites the page. */
export const read: Tool<Input> = {
  name: 'read',
  description:
    'Read a Wikipedia page to answer a question. Input: "Page title # question" (the question defaults to the main question). Output: a short answer citing the page.',
  schemaDescription:
    'Answer `question` from the Wikipedia page `title`: the model reads the passages of the page that fit the question best and answers in a sentence or two, citing the page. Uses the configured model.',
  input,
  toText: ({ title, question }) => (question ? `${title} # ${question}` : title),
  fromText(text) {
    const raw = firstInput(text);
    const json = jsonIn(raw);
    if (json && typeof json === 'object' && !Array.isArray(json)) {
      return input.parse({ title: field(json, ['title', 'page']), question: field(json, ['question', 'query']) });
    }
    if (Array.isArray(json)) return input.parse({ title: String(json[0] ?? ''), question: json[1] ? String(json[1]) : undefined });
    const t = unwrap(raw);
    const sep = t.search(/\s*(#|\|)\s*/);
    if (sep < 0) return input.parse({ title: t });
    const title = unwrap(t.slice(0, sep));
    const question = unwrap(t.slice(sep).replace(/^\s*(#|\|)\s*/, ''));
    return input.parse({ title, question: question || undefined });
  },
  async execute(ctx, { title, question }) {
    const page = await ctx.evidence.page(title);
    if (!page) return `There is no page titled "${title}". Use wikisearch to find the exact title first.`;
    const ask = question ?? ctx.question ?? `What is ${page.title}?`;
    const chunks = pickChunks(chunkPage(page), ask, BUDGET_CHARS);
    if (!chunks.length) return `The page "${page.title}" has no text to read.`;
    const excerpt = chunks.map((c) => (c.heading ? `[${c.heading}] ${c.text}` : c.text)).join('\n\n');
    const reply = await ctx.llm.chat({
      purpose: 'read',
      messages: [
        { role: 'system', content: `${readPrompt.trim()}\n\n${DATA_FENCE_RULE}` },
        // fence() removes PAGE markers from the page text, so the page cannot close its own block.
        { role: 'user', content: `Page: ${oneLine(page.title)}\n${fence('QUESTION', ask)}\n\n${fence('PAGE', excerpt)}` },
      ],
      maxTokens: 200,
    }, { signal: ctx.signal });
    const answer = clip(reply.text.trim() || 'The model gave no answer.', 800);
    return `${answer} (source: ${page.title}, ${page.url})`;
  },
};
