import type { ConversationTurn } from '../engine/types';
import type { ChatRequestBody } from './chat-schema';
import { HttpError } from './errors';
import { cleanText, questionSchema } from '../runs/request-schema';

/**
 * What POST /v1/chat/completions takes from its `messages`: the last user message is the question, and the user and
 * assistant turns before it are the conversation the run's first step reads to make that question self-contained
 * (src/engine/conversation). System, developer and tool messages are not used. Conversation text is a stranger's
 * input like the question: it reaches the model only fenced as data, and only this much of it.
 */

/** The most recent earlier turns a run keeps; older ones rarely hold what a follow-up refers to. */
export const MAX_TURNS = 8;
/** Characters kept of one turn (its start: an assistant's answer comes first, its cited sources after). */
export const MAX_TURN_CHARS = 1_000;
/** Characters of all kept turns together; the oldest go first past it. */
export const MAX_CONVERSATION_CHARS = 4_000;

type Message = ChatRequestBody['messages'][number];

const textOf = (m: Message): string =>
  typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('\n');

const lastUserIndex = (messages: readonly Message[]) => messages.map((m) => m.role).lastIndexOf('user');

/** The question: the last user message, checked like POST /v1/answer's `question`. */
export const questionFrom = (messages: readonly Message[]): string => {
  const at = lastUserIndex(messages);
  if (at < 0) throw new HttpError(400, 'invalid_request', 'messages must contain a message with role "user" (its text is the question)');
  const parsed = questionSchema.safeParse(textOf(messages[at]));
  if (!parsed.success) throw new HttpError(400, 'invalid_request', `the last user message: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
};

const clip = (text: string) => (text.length > MAX_TURN_CHARS ? `${text.slice(0, MAX_TURN_CHARS)}…` : text);

/**
 * The user and assistant turns before the question, oldest first: at most {@link MAX_TURNS} of the latest, each cut
 * at {@link MAX_TURN_CHARS}, and the oldest dropped until all fit in {@link MAX_CONVERSATION_CHARS}. Undefined when no
 * earlier user turn is among them: a lone question (after a system prompt or a greeting) makes no extra model call.
 * @example conversationFrom([{role: 'user', content: 'Who directed Forrest Gump?'}, {role: 'assistant', content: 'Robert Zemeckis.'}, {role: 'user', content: 'When was he born?'}])
 *   // [{role: 'user', content: 'Who directed Forrest Gump?'}, {role: 'assistant', content: 'Robert Zemeckis.'}]
 */
export const conversationFrom = (messages: readonly Message[]): ConversationTurn[] | undefined => {
  const earlier = messages.slice(0, Math.max(0, lastUserIndex(messages)));
  const turns = earlier
    .filter((m): m is Message & { role: ConversationTurn['role'] } => m.role === 'user' || m.role === 'assistant')
    .map((m) => ({ role: m.role, content: clip(cleanText(textOf(m))) }))
    .filter((t) => t.content)
    .slice(-MAX_TURNS);
  let total = turns.reduce((n, t) => n + t.content.length, 0);
  while (turns.length && total > MAX_CONVERSATION_CHARS) total -= turns.shift()!.content.length;
  return turns.some((t) => t.role === 'user') ? turns : undefined;
};

/**
 * A run answers from its own evidence and never calls a client's functions, so a request that offers tools is
 * refused rather than answered as if it had not (a chat UI would wait for a tool call that never comes).
 */
export const refuseClientTools = (body: ChatRequestBody): void => {
  const offered = body as { tools?: unknown; functions?: unknown };
  const offers = (t: unknown) => (Array.isArray(t) ? t.length > 0 : t !== undefined && t !== null);
  if (!offers(offered.tools) && !offers(offered.functions)) return;
  throw new HttpError(
    400,
    'tools_not_supported',
    'this service does not call client tools: it answers from its own evidence (Wikipedia, Wikidata) and its own tools. Send the request without `tools` and `functions` (`tool_choice` is then ignored)',
  );
};
