export { agentStrategy, createAgentStrategy } from './agent';
export type { AgentState, AgentStrategyOptions } from './agent';
export { randomFewshotStrategy, structuredOnlyStrategy, unstructuredOnlyStrategy, zeroShotStrategy } from './variants';
export { createLateFusionStrategy, lateFusionStrategy } from './late-fusion';
export { agreementOf } from './agreement';
export { normaliseAnswer, sameAnswer } from './normalise';
export { parseTurn, resolveTool } from './parse-step';
