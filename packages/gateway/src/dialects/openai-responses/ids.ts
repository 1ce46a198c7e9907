/** Ids in OpenAI's style: `resp_…`, `msg_…`, `fc_…`, `rs_…`. */
import { randomBytes } from 'node:crypto';

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('hex')}`;
}
