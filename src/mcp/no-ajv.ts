/**
 * What `ajv` and `ajv-formats` resolve to in Worker builds (wrangler.toml [alias]). The MCP SDK imports Ajv as its
 * default JSON Schema validator; our server passes its own (src/mcp/server.ts) because it never validates JSON Schemas,
 * and Ajv compiles validators with `new Function`, which Workers refuse. Leaving it out saves ~40 KiB gzip of the
 * Worker upload (npm run bench:bundle). Anything that still reaches for Ajv (`new Ajv()`, `addFormats(ajv)`) fails
 * with this message.
 */
export default function noAjv(): never {
  throw new Error('Ajv is not bundled in this Worker (src/mcp/no-ajv.ts): pass a jsonSchemaValidator instead');
}
