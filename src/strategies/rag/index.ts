import type { AnswerDraft, RunContext, Strategy, StepOutcome } from '../../engine/types';
import { answerEvent, normalizeAnswer } from './answer';
import { attributeStep } from './attribute';
import { calculatorStep } from './calculator';
import { kgChooseStep, kgFetchStep } from './kg-step';
import { parametricStep } from './parametric';
import { reasoningStep, summarizeStep } from './reasoning';
import { ragContextProblem, retrieveStep } from './retrieve';
import { ragOptions, type RagOptions } from './options';
import type { Phase, RagState } from './state';

export type { RagState } from './state';

type StepFn = (state: RagState, ctx: RunContext<RagOptions>) => Promise<StepOutcome<RagState>>;

/** The pipeline, one module per step, in the order of the CRAG hybrid-RAG solution. */
const STEPS: Record<Phase, StepFn> = {
  attribute: (s, ctx) => attributeStep(s, ctx, ctx.options),
  retrieve: (s, ctx) => retrieveStep(s, ctx, ctx.options),
  calculator: (s, ctx) => calculatorStep(s, ctx, ctx.options),
  parametric: parametricStep,
  kg: (s, ctx) => kgChooseStep(s, ctx, ctx.options),
  kg_fetch: kgFetchStep,
  reasoning: (s, ctx) => reasoningStep(s, ctx, ctx.options),
  summarize: summarizeStep,
};

/**
 * CRAG-style hybrid RAG (the ElectricSheep system): attribute predictor with five demonstrations and
 * self-consistency ("I don't know" for dynamic questions on the crag variant and under the paper recipe) →
 * retrieval over the supplied pages (or Wikipedia) → sandboxed calculator → chain-of-thought knowledge extractor
 * with a false-premise check → mock-KG API by entity extraction and rules (or model-written calls) → reasoning
 * along guiding questions in a strict format, rescued by a summariser when the format breaks.
 */
export const ragStrategy: Strategy<RagState, RagOptions> = {
  mode: 'rag',
  options: ragOptions,
  description: 'CRAG-style hybrid RAG over web pages: attribute predictor, retrieval, calculator, knowledge extractor, KG API, reasoning.',
  checkContext: ragContextProblem,
  start: () => ({ phase: 'attribute', refs: [], sources: [], calculations: [], kgCalls: [], kgResults: [] }),
  step: (state, ctx) => STEPS[state.phase](state, ctx),
  partial(state): AnswerDraft | null {
    // Cut short before reasoning: the closed-book guess is the best there is; it counts only where the evidence holds it.
    if (!state.parametric) return null;
    return answerEvent(normalizeAnswer(state.parametric.answer, state.parametric.falsePremise), state).data;
  },
};
