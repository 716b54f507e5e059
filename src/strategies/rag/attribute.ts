import * as z from 'zod';
import { structuredCall } from '../../engine/structured-step';
import { oneLine } from '../../text/prompt-data';
import type { RunContext, StepOutcome } from '../../engine/types';
import { answerEvent, IDK } from './answer';
import prompt from './prompts/attribute.txt';
import type { RagOptions } from './options';
import type { RagState } from './state';

const DOMAINS = ['finance', 'sports', 'music', 'movie', 'open'] as const;

/** Reads one sample; undefined parts when the model strayed from the format. */
export const parseAttribute = (text: string): { dynamism?: 'static' | 'dynamic'; domain?: string } => {
  const dyn = /dynamism\s*:\s*\**\s*(static|dynamic)/i.exec(text) ?? /\b(static|dynamic)\b/i.exec(text);
  const dom = /domain\s*:\s*\**\s*(\w+)/i.exec(text);
  const domain = dom && (DOMAINS as readonly string[]).includes(dom[1].toLowerCase()) ? dom[1].toLowerCase() : undefined;
  return { dynamism: dyn ? (dyn[1].toLowerCase() as 'static' | 'dynamic') : undefined, domain };
};

/** One sample's vote; a part the model left out is no vote on it, whichever way the reply came. */
const ATTRIBUTE_REPLY = {
  name: 'question_attributes',
  schema: z.object({
    dynamism: z.enum(['static', 'dynamic']).optional().meta({ description: 'static: the answer does not change over time; dynamic: it does' }),
    domain: z.enum(DOMAINS).optional().meta({ description: 'the question\'s domain' }),
  }),
  fromText: parseAttribute,
};

const majority = (values: string[]): string | undefined => {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string | undefined;
  for (const [v, n] of counts) if (best === undefined || n > counts.get(best)!) best = v;
  return best;
};

/**
 * Attribute predictor: five demonstrations in the prompt, several samples of "static or dynamic, which domain",
 * decided by majority (self-consistency).
 * The samples run together in one step (one logical call with n samples), so a resumed run repeats them as a unit.
 */
export const attributeStep = async (state: RagState, ctx: RunContext, o: RagOptions): Promise<StepOutcome<RagState>> => {
  const question = ctx.request.question;
  // The model calls are this step's work: the observation reports how long they took, as a tool's does.
  const started = Date.now();
  const replies = await Promise.all(
    Array.from({ length: o.attributeSamples }, () =>
      structuredCall(
        ctx,
        {
          purpose: 'attribute',
          messages: [{ role: 'system', content: prompt.trim() }, { role: 'user', content: `Question: ${oneLine(question)}` }],
          maxTokens: 32,
        },
        ATTRIBUTE_REPLY,
      ),
    ),
  );
  const parsed = replies.map((r) => r.value ?? {});
  const dynVotes = parsed.map((p) => p.dynamism).filter((d): d is 'static' | 'dynamic' => !!d);
  const votes = { static: dynVotes.filter((d) => d === 'static').length, dynamic: dynVotes.filter((d) => d === 'dynamic').length };
  // A tie is not evidence of change: only a strict majority makes a question dynamic.
  const dynamism = dynVotes.length === 0 ? 'unknown' : votes.dynamic > votes.static ? 'dynamic' : 'static';
  const domain = majority(parsed.map((p): string | undefined => p.domain).filter((d): d is string => !!d)) ?? 'open';
  const next: RagState = { ...state, attribute: { dynamism, domain, votes }, phase: 'retrieve' };
  const abstain = dynamism === 'dynamic' && o.dynamicPolicy === 'abstain';
  const events: StepOutcome<RagState>['events'] = [
    { type: 'action', data: { tool: 'attribute', input: { question, samples: o.attributeSamples } } },
    {
      type: 'observation',
      data: {
        tool: 'attribute',
        output: `${dynamism} (static ${votes.static}, dynamic ${votes.dynamic} of ${replies.length} samples), domain ${domain}` +
          (abstain ? '; policy: abstain on dynamic questions' : ''),
        ms: Date.now() - started,
        detail: { dynamism, domain, votes },
      },
    },
  ];
  if (abstain) return { state: next, events: [...events, answerEvent(IDK, next)], done: true };
  return { state: next, events };
};
