/**
 * The response object of a Responses stream's terminal event (`response.completed`,
 * `response.incomplete`) as the core parsed it for the decoder, kept with the `finish` part the
 * event produced. The gateway's encoder stores the final response from it instead of parsing the
 * event's text a second time. A part a plugin rebuilt has none: the encoder parses the text then.
 */
import { hiddenSlot } from '@switchyard/core/internal';

const finals = hiddenSlot<Record<string, unknown>>('switchyard.openai.responsesFinal');

export const keepFinalResponse = finals.set;
export const finalResponseOf = finals.get;
