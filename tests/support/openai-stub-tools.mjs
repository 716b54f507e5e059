// What the model stub (openai-stub.mjs) answers when a scripted reply is an object rather than a string: text held
// for a while, function calls (whole, or streamed with their arguments in pieces, as OpenAI and vLLM send them), and
// the servers that refuse `tools` or `response_format` with a 400.
//
//   {"content": "text", "delayMs": 1000}                      a text reply that waits 1 s first (a slow tool's model call)
//   {"tool_calls": [{"name": "read", "arguments": {...}, "id": "a1B2c3D4e"}], "content": "thought"}
//                    calls in one turn; `arguments` an object is sent as its JSON, a string as it is (malformed JSON
//                    too); ids default to call_<request>_<n>
//   POST /__refuse   {"tools": true, "responseFormat": true}   requests carrying `tools` / `response_format` get 400 in a
//                    server's words until refused again with false or /__reset

/** Characters of a call's arguments per streamed piece: small, so a client must join several. */
const ARGUMENT_PIECE = 7;

/** A scripted reply, string or object, as {content, calls, delayMs}. */
export const replyParts = (scripted, requestNumber) => {
  if (typeof scripted !== 'object' || scripted === null) return { content: scripted ?? '', calls: [], delayMs: 0 };
  const calls = (scripted.tool_calls ?? []).map((c, i) => ({
    id: c.id ?? `call_${requestNumber}_${i}`,
    name: c.name,
    arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
  }));
  return { content: scripted.content ?? '', calls, delayMs: Number(scripted.delayMs ?? 0) };
};

/** The assistant message of a whole (not streamed) reply. */
export const wholeMessage = (text, calls) =>
  calls.length
    ? { role: 'assistant', content: text || null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
    : { role: 'assistant', content: text };

/** The stream deltas of a reply's calls: each call's id and name first, then its arguments a few characters at a time. */
export const callDeltas = (calls) =>
  calls.flatMap((c, index) => {
    const pieces = c.arguments.match(new RegExp(`[\\s\\S]{1,${ARGUMENT_PIECE}}`, 'g')) ?? [];
    return [
      { tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] },
      ...pieces.map((piece) => ({ tool_calls: [{ index, function: { arguments: piece } }] })),
    ];
  });

/** The 400 a server gives a request it cannot take as sent, or undefined. */
export const refusal = (refused, body) => {
  if (refused.tools && Array.isArray(body.tools) && body.tools.length) {
    // vLLM's words when started without a tool-call parser.
    return '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set';
  }
  if (refused.responseFormat && body.response_format) return `response_format "${body.response_format.type}" is not supported by this server`;
  return undefined;
};
