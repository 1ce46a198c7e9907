/** Ids in OpenAI's style: `resp_…`, `msg_…`, `fc_…`, `rs_…` (128 random bits each). */
export { randomId as newId } from '@switchyard/core/internal';
