/// <reference types="node" />
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { jsonProblem } from '../loaders/validate';

/**
 * Files the CLIs read, trusted no further than this: a path names a regular file (not a device, a FIFO or a
 * folder) within a size cap, read in bounded pieces, and a file that holds the wrong thing is refused in words that
 * never echo its bytes. A manifest or a flag can name any path; `/dev/zero` must cost a refusal, not the machine.
 */

/** The input cannot be used; the message says which file and why, without its contents. */
export class InputRefusal extends Error {}

const MiB = 1024 * 1024;

/** Size caps per kind of file (bytes as stored; a compressed benchmark file is also capped once decompressed). */
export const CAPS = {
  /** A benchmark file as stored (CRAG's full dev set with its pages is the largest we know, about 1 GB bz2'd). */
  data: 2048 * MiB,
  /** Decompressed benchmark text: just under the longest string V8 makes. */
  text: 500 * MiB,
  /** An evaluation's predictions.jsonl (each line carries its run's steps). */
  predictions: 500 * MiB,
  /** metrics.json, eval.json, a QALD label table, table.json. */
  json: 64 * MiB,
  /** --options-file, --sweep, a table spec. */
  small: 1 * MiB,
} as const;

const mb = (bytes: number) => `${(bytes / MiB).toFixed(bytes < MiB ? 2 : 0)} MiB`;

/** The size of a regular file at `path`; refuses anything else, or a file over `cap`. */
export const regularFile = (path: string, cap: number, what = 'file'): number => {
  let st;
  try {
    st = statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputRefusal(`${what} ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : `cannot be read (${code ?? 'error'})`}`);
  }
  if (st.isDirectory()) throw new InputRefusal(`${what} ${path} is a folder, not a file`);
  if (!st.isFile()) throw new InputRefusal(`${what} ${path} is not a regular file (a device, a pipe or a socket): refused`);
  if (st.size > cap) throw new InputRefusal(`${what} ${path} is ${mb(st.size)}, over the ${mb(cap)} this command reads`);
  return st.size;
};

/**
 * Calls `each` with the file's bytes in 1 MiB pieces, after checking it is a regular file within `cap`; stops with a
 * refusal if more than `cap` bytes arrive (a file that grows while it is read).
 */
const eachPiece = (path: string, cap: number, what: string, each: (piece: Buffer) => void) => {
  regularFile(path, cap, what);
  const fd = openSync(path, 'r');
  try {
    if (!fstatSync(fd).isFile()) throw new InputRefusal(`${what} ${path} is not a regular file: refused`);
    const buffer = Buffer.allocUnsafe(MiB);
    let total = 0;
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      total += n;
      if (total > cap) throw new InputRefusal(`${what} ${path} grew past ${mb(cap)} while it was read`);
      each(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
};

/** The file's bytes, refused unless it is a regular file within `cap`. */
export const readCapped = (path: string, cap: number, what = 'file'): Buffer => {
  const pieces: Buffer[] = [];
  eachPiece(path, cap, what, (p) => pieces.push(Buffer.from(p)));
  return Buffer.concat(pieces);
};

/** SHA-256 of a file's bytes (as stored, compressed or not), streamed: what a manifest names a data file by. */
export const sha256File = (path: string, cap: number = CAPS.data, what = 'file'): string => {
  const hash = createHash('sha256');
  eachPiece(path, cap, what, (p) => hash.update(p));
  return hash.digest('hex');
};

/** JSON.parse whose error says where, never what: a wrong file's first bytes (e.g. /etc/passwd) are not echoed. */
export const parseJson = (text: string, what: string): unknown => {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputRefusal(`${what} is not valid JSON (${jsonProblem(err)})`);
  }
};

/** A JSON file read within `cap`. */
export const readJsonFile = (path: string, cap: number = CAPS.json, what = 'file'): unknown =>
  parseJson(readCapped(path, cap, what).toString('utf8'), `${what} ${path}`);

/** Refuses a file whose bytes are not the ones a manifest recorded (checked before anything is parsed). */
export const checkSha256 = (path: string, expected: string, what: string, cap: number = CAPS.data, whose = 'the evaluation read'): void => {
  const sha = sha256File(path, cap, what);
  if (sha !== expected) throw new InputRefusal(`${what} ${path} is not the file ${whose} (sha256 ${sha.slice(0, 12)}… ≠ ${expected.slice(0, 12)}…)`);
};

/**
 * The git blob id of a file's bytes (what `git hash-object` prints: SHA-1 over `blob <size>\0` and the bytes), streamed:
 * an upstream repository names every file by it, so a file whose SHA-256 nobody published can still be pinned.
 */
export const gitBlobFile = (path: string, cap: number = CAPS.data, what = 'file'): string => {
  const hash = createHash('sha1').update(`blob ${regularFile(path, cap, what)}\0`);
  eachPiece(path, cap, what, (p) => hash.update(p));
  return hash.digest('hex');
};

/** Refuses a file that is not the upstream blob a table spec pins. */
export const checkGitBlob = (path: string, expected: string, what: string, cap: number = CAPS.data): void => {
  const id = gitBlobFile(path, cap, what);
  if (id !== expected) throw new InputRefusal(`${what} ${path} is not the file the spec pins (git blob ${id.slice(0, 12)}… ≠ ${expected.slice(0, 12)}…)`);
};

/** Ids that occur more than once, with their counts (first occurrences' order). */
export const repeatedIds = (ids: readonly string[]): { id: string; times: number }[] => {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return [...counts].filter(([, n]) => n > 1).map(([id, times]) => ({ id, times }));
};
