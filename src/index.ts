import { buildApp } from './app';

export { RunObject } from '../durable-objects/run-object';
export { RateLimiter } from '../durable-objects/rate-limiter';
export { PolitenessGate } from '../durable-objects/politeness-gate';

export default buildApp();
