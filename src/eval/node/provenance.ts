/// <reference types="node" />
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');

export { sha256File } from './input-files';

const git = (...args: string[]): string | undefined => {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
};

/** The eval CLI's own version: package.json's, and the checkout's commit ("-dirty" with uncommitted changes). */
export const evalCliVersion = (): { version: string; commit: string } => {
  let version = 'unknown';
  try {
    version = (JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    // not in a checkout
  }
  const head = git('rev-parse', 'HEAD');
  const dirty = head ? git('status', '--porcelain', '--untracked-files=no') : undefined;
  return { version, commit: head ? `${head}${dirty ? '-dirty' : ''}` : 'unknown' };
};
