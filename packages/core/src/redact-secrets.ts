/**
 * Keys and bearer tokens never leave the process in a message. This runs on every log line,
 * status answer and vendor error, so the common case (nothing to mask) costs one pass over
 * the text per rule, with no allocation.
 */

/** Shorter runs of a key are too likely to be ordinary text; longer ones identify the key. */
export const SECRET_FRAGMENT_LENGTH = 8;

/** What one list of secrets masks: short ones where they appear whole, long ones by any fragment. */
interface PreparedSecrets {
  short: string[];
  /** Rolling hashes of every fragment of every long secret: a cheap first test per position of the text. */
  hashes: ReadonlySet<number>;
  grams: ReadonlySet<string>;
}

/** Secrets come from config, so the same few lists come back again and again (bounded anyway). */
const preparedCache = new Map<string, PreparedSecrets>();
const PREPARED_CACHE_MAX = 256;
const BASE = 31;
/** BASE^(SECRET_FRAGMENT_LENGTH-1) in 32-bit arithmetic, to drop a character from the rolling hash. */
const TOP = Array.from({ length: SECRET_FRAGMENT_LENGTH - 1 }).reduce<number>((p) => Math.imul(p, BASE), 1);
/** What a masked secret (or a censored field) is replaced with. */
export const REDACTED = '[redacted]';
/** A first test for the well-known key shapes below, so text without any of them is not rewritten. */
const KEY_SHAPE_HINT = /sk-|AIza|bearer/i;
const NON_ASCII = /[^\x00-\x7f]/;

function hashAt(text: string, start: number): number {
  let h = 0;
  for (let i = start; i < start + SECRET_FRAGMENT_LENGTH; i++) h = (Math.imul(h, BASE) + text.charCodeAt(i)) | 0;
  return h;
}

/** Lower-cased so that positions in the result match positions in the input. */
function lowerKeepingPositions(text: string): string {
  return NON_ASCII.test(text) ? text.replace(/[A-Z]+/g, (run) => run.toLowerCase()) : text.toLowerCase();
}

/** Frozen lists (a masker's current secrets) are prepared once: they cannot change under the cache. */
const preparedFrozen = new WeakMap<readonly (string | undefined)[], PreparedSecrets | null>();

function prepare(secrets: readonly (string | undefined)[]): PreparedSecrets | undefined {
  const frozen = Object.isFrozen(secrets);
  if (frozen) {
    const known = preparedFrozen.get(secrets);
    if (known !== undefined) return known ?? undefined;
  }
  const prepared = prepareList(secrets);
  if (frozen) preparedFrozen.set(secrets, prepared ?? null);
  return prepared;
}

function prepareList(secrets: readonly (string | undefined)[]): PreparedSecrets | undefined {
  let key: string | undefined;
  for (const secret of secrets) if (secret && secret.length >= 4) key = key === undefined ? secret : `${key}\0${secret}`;
  if (key === undefined) return undefined;
  let prepared = preparedCache.get(key);
  if (prepared) return prepared;
  const short: string[] = [];
  const grams = new Set<string>();
  const hashes = new Set<number>();
  for (const secret of key.split('\0')) {
    if (secret.length < 4) continue;
    if (secret.length < SECRET_FRAGMENT_LENGTH) {
      short.push(secret);
      continue;
    }
    // Every fragment of the key as written and URL-encoded (once and twice), lower-cased.
    for (const form of new Set([secret, encodeURIComponent(secret), encodeURIComponent(encodeURIComponent(secret))])) {
      const lower = lowerKeepingPositions(form);
      for (let i = 0; i + SECRET_FRAGMENT_LENGTH <= lower.length; i++) {
        grams.add(lower.slice(i, i + SECRET_FRAGMENT_LENGTH));
        hashes.add(hashAt(lower, i));
      }
    }
  }
  if (preparedCache.size >= PREPARED_CACHE_MAX) preparedCache.clear();
  preparedCache.set(key, (prepared = { short, hashes, grams }));
  return prepared;
}

/** Masks every run of `text` made of key fragments (case-insensitive, URL-encoded too). */
function maskFragments(text: string, secrets: PreparedSecrets): string {
  if (text.length < SECRET_FRAGMENT_LENGTH || secrets.grams.size === 0) return text;
  const lower = lowerKeepingPositions(text);
  let covered: Uint8Array | undefined;
  let h = hashAt(lower, 0);
  for (let i = 0; i + SECRET_FRAGMENT_LENGTH <= lower.length; i++) {
    if (i > 0) h = (Math.imul(h - Math.imul(lower.charCodeAt(i - 1), TOP), BASE) + lower.charCodeAt(i + SECRET_FRAGMENT_LENGTH - 1)) | 0;
    if (!secrets.hashes.has(h) || !secrets.grams.has(lower.slice(i, i + SECRET_FRAGMENT_LENGTH))) continue;
    (covered ??= new Uint8Array(text.length)).fill(1, i, i + SECRET_FRAGMENT_LENGTH);
  }
  if (!covered) return text;
  let out = '';
  for (let i = 0; i < text.length; ) {
    if (!covered[i]) {
      out += text[i++];
      continue;
    }
    while (i < text.length && covered[i]) i++;
    out += REDACTED;
  }
  return out;
}

/**
 * Every run of 8 or more characters of a configured key is masked, in any letter case and
 * URL-encoded, so a vendor echoing a prefix, a suffix or an upper-cased key cannot leak it.
 * Shorter secrets (4-7 characters) are masked where they appear whole; well-known key shapes
 * and bearer tokens always.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  const prepared = prepare(secrets);
  if (prepared) {
    for (const secret of prepared.short) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    out = maskFragments(out, prepared);
  }
  if (!KEY_SHAPE_HINT.test(out)) return out;
  return out
    .replace(/\b(sk-[A-Za-z0-9_-]{6})[A-Za-z0-9_-]{8,}/g, `$1…${REDACTED}`)
    .replace(/\b(AIza[0-9A-Za-z_-]{4})[0-9A-Za-z_-]{20,}/g, `$1…${REDACTED}`)
    .replace(/(Bearer\s+)[^\s"']+/gi, `$1${REDACTED}`);
}
