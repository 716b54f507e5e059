import { DATA_FENCE_RULE, fence } from '../../text/prompt-data';
import type { RunContext, StepOutcome } from '../../engine/types';
import { evaluateExpression } from '../../sandbox';
import prompt from './prompts/calculator.txt';
import { formatReferences } from './references';
import type { RagOptions } from './options';
import type { RagState } from './state';

const MAX_EXPRESSIONS = 6;
const MAX_EXPRESSION_CHARS = 300;

/** The `EXPR:` lines of one sample, at most three. */
export const parseExpressions = (text: string): string[] =>
  [...text.matchAll(/^\s*EXPR\s*:\s*`*(.+?)`*\s*$/gim)]
    .map((m) => m[1].trim())
    .filter((e) => e.length > 0 && e.length <= MAX_EXPRESSION_CHARS)
    .slice(0, 3);

/**
 * Numerical calculator: the model writes arithmetic over the numbers in the references (several samples);
 * each distinct expression runs in the QuickJS sandbox with only `Math` in scope — never `eval` here.
 * Values are ranked by how many samples reached them.
 */
export const calculatorStep = async (state: RagState, ctx: RunContext, o: RagOptions): Promise<StepOutcome<RagState>> => {
  const question = ctx.request.question;
  const started = Date.now();
  const replies = await Promise.all(
    Array.from({ length: o.calculatorSamples }, () =>
      ctx.llm.chat({
        purpose: 'calculator',
        messages: [
          { role: 'system', content: `${prompt.trim()}\n${DATA_FENCE_RULE}` },
          { role: 'user', content: `${fence('QUESTION', question)}\n\n${formatReferences(state.refs)}` },
        ],
        maxTokens: 200,
      }),
    ),
  );
  const counts = new Map<string, number>();
  for (const r of replies) for (const e of new Set(parseExpressions(r.text))) counts.set(e, (counts.get(e) ?? 0) + 1);
  const expressions = [...counts].sort((a, b) => b[1] - a[1]).slice(0, MAX_EXPRESSIONS);
  const byValue = new Map<string, { expression: string; value: string; votes: number }>();
  const failures: string[] = [];
  for (const [expression, votes] of expressions) {
    const result = await evaluateExpression(expression, { workUnits: ctx.config.SANDBOX_WORK_UNITS });
    if (!result.ok) {
      failures.push(`${expression} → ${result.error}`);
      continue;
    }
    if (typeof result.value === 'number' && !Number.isFinite(result.value)) {
      failures.push(`${expression} → not a finite number`);
      continue;
    }
    const value = typeof result.value === 'number' ? String(Number(result.value.toPrecision(12))) : String(result.value);
    const seen = byValue.get(value);
    if (seen) seen.votes += votes;
    else byValue.set(value, { expression, value, votes });
  }
  const calculations = [...byValue.values()].sort((a, b) => b.votes - a.votes);
  const output = expressions.length === 0
    ? 'no arithmetic needed'
    : [...calculations.map((c) => `${c.expression} = ${c.value} (${c.votes} of ${replies.length} samples)`), ...failures.map((f) => `rejected: ${f}`)].join('\n');
  return {
    state: { ...state, calculations, phase: 'parametric' },
    events: [
      { type: 'action', data: { tool: 'calculator', input: { question, samples: o.calculatorSamples } } },
      { type: 'observation', data: { tool: 'calculator', output, ms: Date.now() - started, error: calculations.length === 0 && failures.length > 0 } },
    ],
  };
};
