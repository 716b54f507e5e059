import type { EventInput, StepEvent } from './types';

const CARRIERS = ['observation', 'thought', 'action'] as const;

/**
 * What the engine saw during a step besides the strategy's own events — a wait at a politeness gate, a prompt
 * shortened to fit the model's window — joins the step's trace as `notes` on its observation (else its thought,
 * else its action), so a reader sees why a step was slow or what the model was not shown.
 */
export const withNotes = <E extends StepEvent | EventInput>(events: E[], notes: readonly string[]): E[] => {
  if (!notes.length) return events;
  for (const type of CARRIERS) {
    const i = events.findIndex((e) => e.type === type);
    if (i < 0) continue;
    const e = events[i] as Extract<EventInput, { type: (typeof CARRIERS)[number] }>;
    const carried = { ...e, data: { ...e.data, notes: [...(e.data.notes ?? []), ...notes] } } as E;
    return [...events.slice(0, i), carried, ...events.slice(i + 1)];
  }
  return events;
};
