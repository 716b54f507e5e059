import { env } from 'cloudflare:workers';
import { buildApp } from '../../src/app';

/**
 * The app under a deployed-style config. Bindings can't change per test in workerd, so the app is called with
 * the test env's bindings (RATE_LIMITER, RUNS, DB) plus the vars a deployment would set.
 */
export const deployedStyle = (vars: Record<string, string>) => {
  const app = buildApp();
  const fakeEnv = { ...(env as unknown as Record<string, unknown>), ...vars } as unknown as Env;
  return (path: string, init: RequestInit = {}) => app.fetch(new Request(`http://localhost${path}`, init), fakeEnv);
};

export const uniqueKey = (label: string) => `${label}-${crypto.randomUUID()}`;
