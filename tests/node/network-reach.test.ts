import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { importGraph, reachable, repoPath, ROOT } from '../support/import-graph';

/**
 * "Only llm/, evidence/live/, vectors/, telemetry/ and net/ reach the network" (ARCHITECTURE.md), so everything else
 * runs in plain Node and in workerd alike, and a reader knows where to look for what leaves the machine.
 *
 * Scope: the Worker's code, that is every source file under src/ and durable-objects/ (generated code aside), except
 * the files of src/eval/ that the Worker does not import. src/eval/ is the evaluation CLI's library: it runs in Node as
 * a client of the service (its runner calls the service over HTTP, its judge and label fetcher call a model and
 * Wikidata), and nothing reachable from src/index.ts imports it. An eval file the Worker comes to import is held to
 * the rule like any other.
 *
 * A network entry is a use of the global `fetch` (called or passed on: `o.fetch ?? fetch`), `globalThis.fetch`, a
 * WebSocket, EventSource, XMLHttpRequest or `sendBeacon`, or a value imported from a network client (`openai`,
 * `cloudflare:sockets` for `connect()`, Node's http/https/net/tls/dgram, undici, ws). `stub.fetch(…)` on a Durable
 * Object stub, a `fetch(request)` handler and a `typeof fetch` type are not: they are calls inside the deployment, or
 * no call at all. Read on the TypeScript syntax tree, so comments and strings do not count.
 * Runnable alone: `npx vitest run --project node tests/node/network-reach.test.ts`.
 */
const NETWORK_FOLDERS = ['src/llm/', 'src/evidence/live/', 'src/vectors/', 'src/telemetry/', 'src/net/'];
const NETWORK_MODULES = /^(openai|cloudflare:sockets|(node:)?(http|https|http2|net|tls|dgram)|undici|ws|eventsource)(\/.*)?$/;
const NETWORK_CLASSES = new Set(['WebSocket', 'EventSource', 'XMLHttpRequest']);
const GLOBALS = new Set(['globalThis', 'self', 'window']);

/** Where an Identifier only names a member or a type, never reads the global of that name. */
const isMemberName = (node: ts.Identifier): boolean => {
  const p = node.parent;
  return (
    ((ts.isPropertyAccessExpression(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p) || ts.isPropertySignature(p) ||
      ts.isMethodDeclaration(p) || ts.isMethodSignature(p) || ts.isGetAccessor(p) || ts.isSetAccessor(p)) && p.name === node) ||
    (ts.isBindingElement(p) && p.propertyName === node)
  );
};
const inType = (node: ts.Node): boolean => {
  for (let n: ts.Node | undefined = node.parent; n && !ts.isSourceFile(n); n = n.parent) if (ts.isTypeNode(n)) return true;
  return false;
};
const typeOnlyImport = (d: ts.ImportDeclaration) => {
  const c = d.importClause;
  if (!c) return false;
  if (c.isTypeOnly) return true;
  const named = c.namedBindings;
  return !c.name && !!named && ts.isNamedImports(named) && named.elements.every((e) => e.isTypeOnly);
};

/** The network entries in one file's source text, as `line: what`. */
export const networkEntries = (file: string, code: string): string[] => {
  const sf = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => found.push(`${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}: ${what}`);
  const moduleText = (spec: ts.Expression | undefined) => (spec && ts.isStringLiteral(spec) ? spec.text : '');
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && NETWORK_MODULES.test(moduleText(node.moduleSpecifier)) && !typeOnlyImport(node)) at(node, `imports ${moduleText(node.moduleSpecifier)}`);
    else if (ts.isExportDeclaration(node) && NETWORK_MODULES.test(moduleText(node.moduleSpecifier)) && !node.isTypeOnly) at(node, `re-exports ${moduleText(node.moduleSpecifier)}`);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && NETWORK_MODULES.test(moduleText(node.arguments[0]))) at(node, `imports ${moduleText(node.arguments[0])}`);
    else if (ts.isIdentifier(node) && node.text === 'fetch' && !isMemberName(node) && !inType(node)) at(node, 'the global fetch');
    else if (ts.isIdentifier(node) && NETWORK_CLASSES.has(node.text) && !isMemberName(node) && !inType(node)) at(node, node.text);
    else if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && GLOBALS.has(node.expression.text) && node.name.text === 'fetch') at(node, `${node.expression.text}.fetch`);
    else if (ts.isPropertyAccessExpression(node) && node.name.text === 'sendBeacon') at(node, 'sendBeacon');
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
};

describe('network reach', () => {
  const graph = importGraph(['src', 'durable-objects']);
  const worker = reachable(graph, join(ROOT, 'src/index.ts'));
  const files = [...graph.keys()].map((f) => ({ file: f, path: repoPath(f) })).filter(({ path }) => !path.startsWith('src/generated/'));
  const inScope = files.filter(({ file, path }) => !path.startsWith('src/eval/') || worker.has(file));
  const entries = (list: typeof files) => list.flatMap(({ file, path }) => networkEntries(path, readFileSync(file, 'utf8')).map((e) => `${path}:${e}`));

  it('finds network entries where they are, and none where they are not (the check is not vacuous)', () => {
    expect(networkEntries('fixture.ts', FIXTURE)).toEqual([
      '2: imports openai',
      '4: imports cloudflare:sockets',
      '6: the global fetch',
      '7: the global fetch',
      '8: WebSocket',
      '9: globalThis.fetch',
      '10: imports node:https',
    ]);
    const allowed = entries(inScope.filter(({ path }) => NETWORK_FOLDERS.some((d) => path.startsWith(d))));
    expect(allowed).toEqual(expect.arrayContaining([expect.stringMatching(/^src\/llm\/openai\.ts:\d+: imports openai$/), expect.stringMatching(/^src\/evidence\/live\/http-attempt\.ts:\d+: the global fetch$/), expect.stringMatching(/^src\/telemetry\/otlp\.ts:\d+: the global fetch$/)]));
  });

  it('the Worker does not import src/eval/, so the evaluation CLI is out of scope (and does reach the network)', () => {
    expect([...worker].map(repoPath).filter((p) => p.startsWith('src/eval/'))).toEqual([]);
    expect(worker.size).toBeGreaterThan(200);
    const evalEntries = entries(files.filter(({ path }) => path.startsWith('src/eval/')));
    expect(evalEntries).toEqual(expect.arrayContaining([expect.stringMatching(/^src\/eval\/judge\.ts:\d+: imports openai$/), expect.stringMatching(/^src\/eval\/runner\/client\.ts:\d+: the global fetch$/)]));
  });

  it('only llm/, evidence/live/, vectors/, telemetry/ and net/ reach the network', () => {
    expect(entries(inScope.filter(({ path }) => !NETWORK_FOLDERS.some((d) => path.startsWith(d))))).toEqual([]);
  });
});

/** Each line that must count is numbered in the expectation above; the others must not count. */
const FIXTURE = `import type OpenAITypes from 'openai';
import OpenAI from 'openai';
import { type ChatCompletion } from 'openai/resources';
import { connect } from 'cloudflare:sockets';
export const handler = { async fetch(request: Request) { return stub.fetch(request); } };
const res = await fetch('https://example.org');
const doFetch: typeof fetch = options.fetch ?? fetch;
const socket = new WebSocket('wss://example.org');
globalThis.fetch('https://example.org');
const https = await import('node:https');
const page = { fetch: () => 'a member' }; page.fetch(); // fetch('in a comment'), 'fetch(in a string)'
`;
