import type { Config } from '../config';
import type * as z from 'zod';
import type { Strategy, Variant } from '../engine/types';
import { lateFusionPipelineStrategy, lateFusionRandomStrategy } from './hqa/baselines/late-fusion-pipelines';
import { parametricStrategy } from './baselines/parametric';
import { staticPipelineStrategy } from './hqa/baselines/static-pipeline';
import {
  agentStrategy,
  lateFusionStrategy,
  randomFewshotStrategy,
  structuredOnlyStrategy,
  unstructuredOnlyStrategy,
  zeroShotStrategy,
} from './hqa';
import { programStrategy } from './program';
import { ragStrategy } from './rag';
import { toolLoopStrategy } from './testing/tool-loop';
import type { Tool } from '../tools/types';

/**
 * Every strategy by mode: the one list of modes (the run service, /healthz and /openapi.json read it here). Strategies
 * never import each other; this is the one place that knows them all.
 */
const strategies: Strategy<any, any>[] = [
  agentStrategy,
  programStrategy,
  ragStrategy,
  parametricStrategy,
  zeroShotStrategy,
  randomFewshotStrategy,
  staticPipelineStrategy,
  lateFusionStrategy,
  lateFusionPipelineStrategy,
  lateFusionRandomStrategy,
  structuredOnlyStrategy,
  unstructuredOnlyStrategy,
];

/** Registered only in test builds (TEST_MODE), and never documented. */
const testStrategies: Strategy<any, any>[] = [toolLoopStrategy];

const registered = (config: Config): Strategy<any, any>[] => [...strategies, ...(config.TEST_MODE ? testStrategies : [])];

export const availableModes = (config: Config): string[] => registered(config).map((s) => s.mode);

export const strategyFor = (mode: string, config: Config): Strategy<any, any> | undefined => registered(config).find((s) => s.mode === mode);

/**
 * A stored state of a run of `mode`, in the shape its strategy reads now (Strategy.upgradeState); as it is when the
 * strategy has no older shape, or the mode is gone. Run storage calls it when it migrates (durable-objects/run/migrations.ts).
 */
export const upgradeStoredState = (mode: string, state: unknown): unknown => {
  const strategy = [...strategies, ...testStrategies].find((s) => s.mode === mode);
  return strategy?.upgradeState ? strategy.upgradeState(state) : state;
};

/** Each documented mode's options schema, for /openapi.json: the modes of every deployment, none test-only. */
export const documentedOptions = (): Array<[mode: string, schema: z.ZodObject]> => strategies.map((s) => [s.mode, s.options.schema]);

/** The mode a variant runs when the request names none (falls back to what is implemented). */
export const defaultMode = (variant: Variant, config: Config): string => {
  const preferred = variant === 'hybridqa' || variant === 'mmqa' ? 'program' : variant === 'crag' ? 'rag' : 'agent';
  return strategyFor(preferred, config) ? preferred : 'parametric';
};

/** What the registered strategies add to the shared tools; the engine's tool registry takes them from here. */
export const strategyTools = (config: Config): Tool[] => registered(config).flatMap((s) => s.tools ?? []);
