import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * "Functions a reader can hold" (issue "A house a newcomer can change"): no function over 120 lines, at most five over
 * 80, no file over 300 lines, in the Worker code (src/ and durable-objects/, generated code aside) and in the command
 * lines of cli/ (TypeScript and JavaScript alike). Measured on the
 * TypeScript syntax tree, so a long string or comment is not a function and a one-line arrow is one line.
 * Runnable alone: `npx vitest run --project node tests/node/code-size.test.ts`.
 */
const ROOT = join(import.meta.dirname, '../..');
const MAX_FUNCTION_LINES = 120;
const LONG_FUNCTION_LINES = 80;
const MAX_LONG_FUNCTIONS = 5;
const MAX_FILE_LINES = 300;
/** Written by tools, not read by people. */
const GENERATED = ['src/generated/', 'src/worker-configuration.d.ts'];

/**
 * Functions known to break the limits, each to be split by the work named beside it; the list may only shrink (the
 * test fails when a listed function no longer needs its place). A listed function is not counted among the five.
 */
const KNOWN_LONG_FUNCTIONS: Array<{ file: string; name: string; why: string }> = [];
/** Files known to pass MAX_FILE_LINES; same rule as above. */
const KNOWN_LONG_FILES: Array<{ file: string; why: string }> = [];

export interface FunctionSize {
  file: string;
  name: string;
  line: number;
  lines: number;
}

/** Lines as an editor numbers them: a final newline does not start another line. */
export const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** What a reader would call the function: its own name, the variable, property or class member it is assigned to. */
const nameOf = (node: ts.SignatureDeclaration, sf: ts.SourceFile): string => {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return node.name.getText(sf);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) return parent.name.getText(sf);
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(sf).slice(0, 40)})`;
  return '(anonymous)';
};

const isFunction = (node: ts.Node): node is ts.SignatureDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node);

/**
 * Every function of one file with its length in lines, from its first token (after its doc comment) to its last.
 * Nested closures are measured on their own and also count inside their parent's lines: a parent is as long as
 * what a reader must hold to follow it.
 */
export const measureFunctions = (file: string, text: string): FunctionSize[] => {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.mjs') ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const found: FunctionSize[] = [];
  const visit = (node: ts.Node) => {
    if (isFunction(node) && (!('body' in node) || node.body)) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file, name: nameOf(node, sf), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
};

const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(join(ROOT, path)).isDirectory() ? sources(path) : /\.(ts|mts|mjs)$/.test(name) ? [path] : [];
  });

export interface CodeSizeReport {
  files: Array<{ file: string; lines: number }>;
  functions: FunctionSize[];
}

export const measureTree = (dirs: string[]): CodeSizeReport => {
  const files = dirs.flatMap(sources).filter((f) => !GENERATED.some((g) => f === g || f.startsWith(g)));
  const report: CodeSizeReport = { files: [], functions: [] };
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    report.files.push({ file, lines: lineCount(text) });
    report.functions.push(...measureFunctions(file, text));
  }
  return report;
};

/** What breaks the limits, given the lists of known exceptions: the offenders and the exceptions that no longer offend. */
export const judge = (report: CodeSizeReport, knownFunctions: Array<{ file: string; name: string }>, knownFiles: Array<{ file: string }>) => {
  const listed = (f: FunctionSize) => knownFunctions.some((k) => k.file === f.file && k.name === f.name);
  const long = report.functions.filter((f) => f.lines > LONG_FUNCTION_LINES).sort((a, b) => b.lines - a.lines);
  const unlisted = long.filter((f) => !listed(f));
  const show = (f: FunctionSize) => `${f.name} (${f.file}:${f.line}) ${f.lines} lines`;
  return {
    long,
    tooLong: unlisted.filter((f) => f.lines > MAX_FUNCTION_LINES).map(show),
    // Beyond the five allowed, every unlisted function over 80 lines is an offender (the shortest of them are the five).
    tooManyLong: unlisted.length > MAX_LONG_FUNCTIONS ? unlisted.map(show) : [],
    tooLongFiles: report.files.filter((f) => f.lines > MAX_FILE_LINES && !knownFiles.some((k) => k.file === f.file)).map((f) => `${f.file} ${f.lines} lines`),
    staleFunctions: knownFunctions.filter((k) => !long.some((f) => f.file === k.file && f.name === k.name)).map((k) => `${k.name} (${k.file})`),
    staleFiles: knownFiles.filter((k) => !report.files.some((f) => f.file === k.file && f.lines > MAX_FILE_LINES)).map((k) => k.file),
  };
};

/** A made-up module: one 130-line function with a closure inside, and enough other lines to pass 300. */
const FIXTURE = [
  'export const longOne = (items: number[]) => {',
  '  let total = 0;',
  '  const inner = (n: number) => {',
  ...Array.from({ length: 60 }, (_, k) => `    total += n * ${k};`),
  '  };',
  ...Array.from({ length: 64 }, (_, k) => `  items.forEach((n) => inner(n + ${k}));`),
  '  return total;',
  '};',
  ...Array.from({ length: 200 }, (_, k) => `export function short${k}() { return ${k}; }`),
  '',
].join('\n');

describe('function and file sizes', () => {
  it('measures a long function, its closure inside it, and a long file (the check is not vacuous)', () => {
    const functions = measureFunctions('fixture/long.ts', FIXTURE);
    expect(functions.find((f) => f.name === 'longOne')).toMatchObject({ line: 1, lines: 130 });
    expect(functions.find((f) => f.name === 'inner')).toMatchObject({ line: 3, lines: 62 });
    expect(functions.filter((f) => f.name.startsWith('short')).every((f) => f.lines === 1)).toBe(true);
    const verdict = judge({ files: [{ file: 'fixture/long.ts', lines: lineCount(FIXTURE) }], functions }, [], []);
    expect(verdict.tooLong).toEqual(['longOne (fixture/long.ts:1) 130 lines']);
    expect(verdict.tooLongFiles).toEqual(['fixture/long.ts 330 lines']);
    // Listed, it is let through; listed but short, the list is stale.
    const listed = judge({ files: [], functions }, [{ file: 'fixture/long.ts', name: 'longOne' }, { file: 'fixture/long.ts', name: 'inner' }], [{ file: 'fixture/long.ts' }]);
    expect(listed.tooLong).toEqual([]);
    expect(listed.staleFunctions).toEqual(['inner (fixture/long.ts)']);
    expect(listed.staleFiles).toEqual(['fixture/long.ts']);
  });

  it('counts six functions over 80 lines as one too many', () => {
    const functions = Array.from({ length: 6 }, (_, k) => ({ file: 'f.ts', name: `f${k}`, line: k, lines: 81 + k }));
    expect(judge({ files: [], functions }, [], []).tooManyLong).toHaveLength(6);
    expect(judge({ files: [], functions: functions.slice(1) }, [], []).tooManyLong).toEqual([]);
  });

  const report = measureTree(['src', 'durable-objects', 'cli']);
  const verdict = judge(report, KNOWN_LONG_FUNCTIONS, KNOWN_LONG_FILES);

  it('reads the real code', () => {
    expect(report.files.length).toBeGreaterThan(200);
    expect(report.files.some((f) => f.file.startsWith('src/generated/'))).toBe(false);
    expect(report.functions.find((f) => f.file === 'durable-objects/run-object.ts' && f.name === 'fetch')).toBeDefined();
    // cli/ is measured too, its JavaScript as well as its TypeScript.
    expect(report.functions.find((f) => f.file === 'cli/args.ts' && f.name === 'readArgs')).toBeDefined();
    expect(report.files.some((f) => f.file === 'cli/dev.mjs')).toBe(true);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines and at most ${MAX_LONG_FUNCTIONS} over ${LONG_FUNCTION_LINES}, but for the listed ones`, () => {
    console.log(
      [
        `${verdict.long.length} functions over ${LONG_FUNCTION_LINES} lines (${verdict.long.filter((f) => f.lines > MAX_FUNCTION_LINES).length} over ${MAX_FUNCTION_LINES}); known exceptions still to split:`,
        ...KNOWN_LONG_FUNCTIONS.map((k) => `  ${k.name} (${k.file}) ${verdict.long.find((f) => f.file === k.file && f.name === k.name)?.lines ?? '-'} lines: ${k.why}`),
        ...KNOWN_LONG_FILES.map((k) => `  ${k.file}: ${k.why}`),
      ].join('\n'),
    );
    expect(verdict.tooLong, `functions over ${MAX_FUNCTION_LINES} lines: split them along their seams`).toEqual([]);
    expect(verdict.tooManyLong, `more than ${MAX_LONG_FUNCTIONS} unlisted functions over ${LONG_FUNCTION_LINES} lines`).toEqual([]);
  });

  it(`has no file over ${MAX_FILE_LINES} lines, but for the listed ones`, () => {
    expect(verdict.tooLongFiles, 'split the file along a real seam').toEqual([]);
  });

  it('lists only exceptions that still break a limit (the list only shrinks)', () => {
    expect(verdict.staleFunctions, 'no longer over 80 lines: remove them from KNOWN_LONG_FUNCTIONS').toEqual([]);
    expect(verdict.staleFiles, 'no longer over 300 lines: remove them from KNOWN_LONG_FILES').toEqual([]);
  });
});
