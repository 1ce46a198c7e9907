/**
 * Keys and bearer tokens never leave the process in a message. This runs on every log line,
 * status answer and vendor error, so the common case (nothing to mask) costs one pass over
 * the text per rule, with no allocation.
 */

import { registeredErrorCodes } from './errors.js';

/** Shorter runs of a key are too likely to be ordinary text; longer ones identify the key. */
export const SECRET_FRAGMENT_LENGTH = 8;

/**
 * A leading segment of a key that names it rather than keeps it secret (`sk`, `switchyard`,
 * `proj`, `ant`, `api03`): a lower-case word of at most 12 letters and 2 digits.
 */
const NAMING_SEGMENT = /^[a-z]{1,12}[0-9]{0,2}$/;

/**
 * The random part of a key: what follows its naming prefix (`sk-switchyard-`, `sk-ant-api03-`).
 * Only fragments of this part identify the key; fragments of the prefix are words the gateway
 * writes itself (`SWITCHYARD_ERR_…`, `@switchyard/…`, an endpoint named `deepseek`).
 */
export function secretRandomPart(secret: string): string {
  let at = 0;
  const segment = /([^-_.:]*)([-_.:]|$)/y;
  for (;;) {
    segment.lastIndex = at;
    const match = segment.exec(secret);
    if (!match || match[2] === '' || !NAMING_SEGMENT.test(match[1])) break;
    at = segment.lastIndex;
  }
  return secret.slice(at);
}

/** Switchyard's own words (the error codes registered when first needed), never masked as a key's fragments. */
const coreWords = (): readonly string[] => registeredErrorCodes().map((info) => info.code);

/** What one list of secrets masks: each whole, and those with a long random part by any fragment of it. */
interface PreparedSecrets {
  whole: string[];
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

/** Frozen lists (a masker's current secrets) are prepared once per own-text list: they cannot change under the cache. */
const preparedFrozen = new WeakMap<readonly (string | undefined)[], { ownText: readonly string[] | undefined; prepared: PreparedSecrets | null }>();

function prepare(secrets: readonly (string | undefined)[], ownText: readonly string[] | undefined): PreparedSecrets | undefined {
  const frozen = Object.isFrozen(secrets) && (ownText === undefined || Object.isFrozen(ownText));
  if (frozen) {
    const known = preparedFrozen.get(secrets);
    if (known !== undefined && known.ownText === ownText) return known.prepared ?? undefined;
  }
  const prepared = prepareList(secrets, ownText);
  if (frozen) preparedFrozen.set(secrets, { ownText, prepared: prepared ?? null });
  return prepared;
}

/** Every 8-character fragment of these texts, lower-cased. */
function fragmentsOf(texts: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const text of texts) {
    const lower = lowerKeepingPositions(text);
    for (let i = 0; i + SECRET_FRAGMENT_LENGTH <= lower.length; i++) out.add(lower.slice(i, i + SECRET_FRAGMENT_LENGTH));
  }
  return out;
}

let coreFragments: Set<string> | undefined;

function prepareList(secrets: readonly (string | undefined)[], ownText: readonly string[] | undefined): PreparedSecrets | undefined {
  let key: string | undefined;
  for (const secret of secrets) if (secret && secret.length >= 4) key = key === undefined ? secret : `${key}\0${secret}`;
  if (key === undefined) return undefined;
  const cacheKey = ownText?.length ? `${key}\u0001${ownText.join('\0')}` : key;
  let prepared = preparedCache.get(cacheKey);
  if (prepared) return prepared;
  // A fragment of the gateway's own words is not a key's, even when a key happens to contain it.
  const own = (coreFragments ??= fragmentsOf(coreWords()));
  const ownMore = ownText?.length ? fragmentsOf(ownText) : undefined;
  const whole: string[] = [];
  const grams = new Set<string>();
  const hashes = new Set<number>();
  for (const secret of key.split('\0')) {
    if (secret.length < 4) continue;
    whole.push(secret);
    const random = secretRandomPart(secret);
    if (random.length < SECRET_FRAGMENT_LENGTH) continue;
    const prefix = secret.slice(0, secret.length - random.length);
    // Every fragment of the key with at least half of it in the random part (an echoed prefix
    // `sk-switchyard-3f9c…` is masked from its fourth random character on), as written and
    // URL-encoded (once and twice), lower-cased.
    for (const encode of [(t: string) => t, encodeURIComponent, (t: string) => encodeURIComponent(encodeURIComponent(t))]) {
      const lower = lowerKeepingPositions(encode(secret));
      const from = Math.max(0, encode(prefix).length - SECRET_FRAGMENT_LENGTH / 2);
      for (let i = from; i + SECRET_FRAGMENT_LENGTH <= lower.length; i++) {
        const gram = lower.slice(i, i + SECRET_FRAGMENT_LENGTH);
        if (own.has(gram) || ownMore?.has(gram)) continue;
        grams.add(gram);
        hashes.add(hashAt(lower, i));
      }
    }
  }
  // Longest first: a key containing another is masked whole, not around the shorter one.
  whole.sort((a, b) => b.length - a.length);
  if (preparedCache.size >= PREPARED_CACHE_MAX) preparedCache.clear();
  preparedCache.set(cacheKey, (prepared = { whole, hashes, grams }));
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
 * A configured key is masked where it appears whole, and every run of 8 or more of its
 * characters of which at least half are in its random part (what follows a naming prefix such
 * as `sk-switchyard-`) wherever it appears,
 * in any letter case and URL-encoded, so a vendor echoing a prefix, a suffix or an upper-cased
 * key cannot leak it. A fragment that also occurs in the core's error codes or in `ownText`
 * (the words the caller writes itself: endpoint and model names, package names, paths) is not
 * masked. Well-known key shapes and bearer tokens are masked always.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = [], ownText?: readonly string[]): string {
  let out = text;
  const prepared = prepare(secrets, ownText);
  if (prepared) {
    for (const secret of prepared.whole) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    out = maskFragments(out, prepared);
  }
  if (!KEY_SHAPE_HINT.test(out)) return out;
  return out
    .replace(/\b(sk-[A-Za-z0-9_-]{6})[A-Za-z0-9_-]{8,}/g, `$1…${REDACTED}`)
    .replace(/\b(AIza[0-9A-Za-z_-]{4})[0-9A-Za-z_-]{20,}/g, `$1…${REDACTED}`)
    .replace(/(Bearer\s+)[^\s"']+/gi, `$1${REDACTED}`);
}
