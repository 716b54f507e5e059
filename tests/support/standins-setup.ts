import type { TestProject } from 'vitest/node';
import { startCragKgStandIn } from './crag-kg-standin.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the CRAG mock-KG stand-in (tests/support/crag-kg-standin.mjs), served by Node on 127.0.0.1. */
    cragKgUrl: string;
  }
}

/**
 * Servers the workerd tests talk to over real HTTP. workerd can reach 127.0.0.1 only when something listens there, and
 * a test file runs inside workerd, so the server is started here, in Node, once per test run; a test reads its address
 * with `inject('cragKgUrl')`.
 */
export default async function setup(project: TestProject) {
  const kg = await startCragKgStandIn();
  project.provide('cragKgUrl', kg.url);
  return () => kg.close();
}
