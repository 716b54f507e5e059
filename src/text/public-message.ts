/**
 * An error message as a client may read it: no stack trace and no path of the machine the service runs on. Runtimes
 * and libraries put both into messages (workerd's "Network connection lost." arrives with its stack under
 * `npm run dev`; a module or database error names the file it could not open), and a client has no use for either:
 * it learns the layout of the server. Everything else of the message is kept.
 */

/** A stack frame line: `    at fetch (file:///srv/app/index.js:10:5)`, `    at async Object.fetch (…)`. */
const STACK_FRAME = /\n[ \t]*at [^\n]*/g;
/** `file://` URLs, and absolute paths under the usual roots of a machine (never an API path such as /v1/runs). */
const FILE_URL = /\bfile:\/\/[^\s)'"`]*/g;
const ROOTED_PATH = /(?<![\w.:/-])\/(?:home|work|root|tmp|usr|var|opt|srv|Users|mnt|private|proc|etc|app|workspace|build|nix)\/[^\s)'"`]*/g;
/** Windows paths: `C:\Users\…`. */
const DRIVE_PATH = /\b[A-Za-z]:\\[^\s)'"`]*/g;
/** A script's own location in a frame-less mention: `node_modules/…/x.js:12:3`, `index.js:5495:22`. */
const SCRIPT_AT = /(?<![\w/.-])(?:[\w.@-]+\/)*[\w.-]+\.(?:[cm]?js|ts|wasm)(?::\d+){1,2}\b/g;

/**
 * The message without stack frames or machine paths (each path becomes `[path]`).
 * @example publicMessage('Error: Network connection lost.\n    at async Object.fetch (file:///work/app/node_modules/miniflare/dist/entry.worker.js:5495:22)') // 'Error: Network connection lost.'
 */
export const publicMessage = (message: string): string =>
  String(message)
    .replace(STACK_FRAME, '')
    .replace(FILE_URL, '[path]')
    .replace(ROOTED_PATH, '[path]')
    .replace(DRIVE_PATH, '[path]')
    .replace(SCRIPT_AT, '[path]')
    .trim();
