/// <reference types="node" />
import { gunzipSync } from 'node:zlib';
import Bunzip from 'seek-bzip';
import { CAPS, InputRefusal, readCapped } from './input-files';

/**
 * Reads a benchmark file as text, decompressing gzip or bzip2 by their magic bytes (file names
 * lie: CRAG ships `.jsonl.bz2`, our sample is `.jsonl.gz`). Refuses anything but a regular file within CAPS.data,
 * and stops a decompression at CAPS.text. Node only.
 */
export const readBenchmarkText = (path: string, what = 'data file'): string => decodeBenchmarkBytes(readCapped(path, CAPS.data, what), `${what} ${path}`);

/** bzip2 output that refuses to grow past `cap` (seek-bzip's own output stream doubles without end). */
const cappedOutput = (cap: number, what: string) => {
  let buffer = Buffer.allocUnsafe(1 << 20);
  let pos = 0;
  return {
    writeByte(byte: number) {
      if (pos >= buffer.length) {
        if (buffer.length >= cap) throw new InputRefusal(`${what} decompresses to more than ${cap >> 20} MiB`);
        const next = Buffer.allocUnsafe(Math.min(cap, buffer.length * 2));
        buffer.copy(next);
        buffer = next;
      }
      buffer[pos++] = byte;
    },
    getBuffer: () => buffer.subarray(0, pos),
  };
};

export const decodeBenchmarkBytes = (bytes: Uint8Array, what = 'data file', cap: number = CAPS.text): string => {
  let out: Uint8Array = bytes;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      out = gunzipSync(bytes, { maxOutputLength: cap });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new InputRefusal(code === 'ERR_BUFFER_TOO_LARGE' ? `${what} decompresses to more than ${cap >> 20} MiB` : `${what} is not valid gzip`);
    }
  } else if (bytes[0] === 0x42 && bytes[1] === 0x5a && bytes[2] === 0x68) {
    const output = cappedOutput(cap, what);
    try {
      Bunzip.decode(Buffer.from(bytes), output as never);
    } catch (err) {
      if (err instanceof InputRefusal) throw err;
      throw new InputRefusal(`${what} is not valid bzip2`);
    }
    out = output.getBuffer();
  }
  if (out.length > cap) throw new InputRefusal(`${what} is over ${cap >> 20} MiB of text`);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength).toString('utf8');
};

/** Reads predictions.jsonl (a regular file within CAPS.predictions); unparsable lines (a run killed mid-write) are skipped. */
export const readPredictionLines = (path: string): unknown[] => {
  const out: unknown[] = [];
  for (const line of readCapped(path, CAPS.predictions, 'predictions file').toString('utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // a torn last line from an interrupted run
    }
  }
  return out;
};
