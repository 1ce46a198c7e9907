/** A Redis URL fit for messages and logs: its password is never shown. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*)@/i, (_all, scheme: string, auth: string) => {
    const colon = auth.indexOf(':');
    return `${scheme}${colon === -1 ? '***' : `${auth.slice(0, colon)}:***`}@`;
  });
}
