/** Types for dev-front.mjs: the front server of `npm run dev` in front of wrangler's own. */
import type { Server } from 'node:http';
export function startFront(options: { ip: string; port: number; upstream: { host: string; port: number }; log?: (line: string) => void }): Promise<Server>;
