import { buildApp } from './app';

export { AgentRun } from '../durable-objects/agent-run';
export { RateLimiter } from '../durable-objects/rate-limiter';
export { PolitenessGate } from '../durable-objects/politeness-gate';

export default buildApp();
