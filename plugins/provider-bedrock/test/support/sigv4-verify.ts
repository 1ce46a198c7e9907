/**
 * An AWS Signature Version 4 verifier written from the specification with node:crypto only,
 * so the fake Bedrock checks the provider's signatures independently of @smithy/signature-v4
 * (the library the provider signs with). It passes AWS's published test suite
 * (test/sigv4-test-suite, from awslabs/aws-c-auth, Apache-2.0): sigv4-verify.test.ts.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export interface SignedRequestView {
  method: string;
  /** The request target as sent: path and query, percent-encoded as on the wire. */
  target: string;
  /** Header lines in the order received (names in any case; repeats allowed). */
  headers: ReadonlyArray<readonly [string, string]>;
  body: Buffer;
}

export interface SecretOf {
  secretAccessKey: string;
  sessionToken?: string;
}

export interface VerifyOptions {
  region: string;
  service: string;
  /** The secret of an access key id, undefined when the key is unknown. */
  secretOf(accessKeyId: string): SecretOf | undefined;
  /** Remove `.`/`..` segments and repeated slashes (every service but S3). */
  normalize?: boolean;
  /** Current time; the request's x-amz-date must be within `maxSkewMs` of it (AWS: 5 minutes). */
  now?: Date;
  maxSkewMs?: number;
}

export type Verdict =
  | { ok: true; accessKeyId: string; signedHeaders: string[] }
  | { ok: false; code: 'MissingAuthenticationToken' | 'IncompleteSignature' | 'UnrecognizedClient' | 'InvalidSignature' | 'SignatureExpired' | 'ExpiredToken'; reason: string; canonicalRequest?: string };

const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 unreserved characters stay; everything else is %XX of its UTF-8 bytes, upper-case hex. */
export function uriEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function normalizePath(path: string): string {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  const joined = `/${out.join('/')}`;
  return path.endsWith('/') && joined !== '/' ? `${joined}/` : joined;
}

/** Each segment of the path as received is encoded again (so `%3A` on the wire is `%253A` here). */
export function canonicalUri(path: string, normalize: boolean): string {
  const p = normalize ? normalizePath(path || '/') : path || '/';
  return p.split('/').map(uriEncode).join('/');
}

export function canonicalQuery(query: string): string {
  if (!query) return '';
  const pairs = query
    .split('&')
    .filter((p) => p.length > 0)
    .map((p) => {
      const eq = p.indexOf('=');
      const key = eq < 0 ? p : p.slice(0, eq);
      const value = eq < 0 ? '' : p.slice(eq + 1);
      return [uriEncode(safeDecode(key)), uriEncode(safeDecode(value))] as const;
    });
  pairs.sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

/** Values of one name joined by commas, inner whitespace runs folded to one space, ends trimmed. */
function headerValues(headers: SignedRequestView['headers'], name: string): string | undefined {
  const values = headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v.trim().replace(/\s+/g, ' '));
  return values.length === 0 ? undefined : values.join(',');
}

export function canonicalRequest(req: SignedRequestView, signedHeaders: readonly string[], normalize: boolean, payloadHash: string): string {
  const q = req.target.indexOf('?');
  const path = q < 0 ? req.target : req.target.slice(0, q);
  const query = q < 0 ? '' : req.target.slice(q + 1);
  const headerBlock = signedHeaders.map((name) => `${name}:${headerValues(req.headers, name) ?? ''}\n`).join('');
  return [req.method.toUpperCase(), canonicalUri(path, normalize), canonicalQuery(query), headerBlock, signedHeaders.join(';'), payloadHash].join('\n');
}

export function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

export function stringToSign(amzDate: string, scope: string, canonical: string): string {
  return ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonical)].join('\n');
}

/** Parses `20150830T123600Z`. */
function parseAmzDate(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : undefined;
}

export function verifySigV4(req: SignedRequestView, options: VerifyOptions): Verdict {
  const authorization = headerValues(req.headers, 'authorization');
  if (!authorization) return { ok: false, code: 'MissingAuthenticationToken', reason: 'no Authorization header' };
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!m) return { ok: false, code: 'IncompleteSignature', reason: `malformed Authorization header: ${authorization.slice(0, 60)}` };
  const [, accessKeyId, date, region, service, signedList, signature] = m as unknown as [string, string, string, string, string, string, string];
  if (region !== options.region || service !== options.service) return { ok: false, code: 'InvalidSignature', reason: `credential scope ${region}/${service}, expected ${options.region}/${options.service}` };
  const signedHeaders = signedList.split(';');
  if (!signedHeaders.includes('host')) return { ok: false, code: 'IncompleteSignature', reason: 'host is not signed' };
  const amzDate = headerValues(req.headers, 'x-amz-date');
  const when = amzDate ? parseAmzDate(amzDate) : undefined;
  if (!amzDate || !when || !amzDate.startsWith(date)) return { ok: false, code: 'IncompleteSignature', reason: 'x-amz-date missing or not matching the credential date' };
  if (options.now && Math.abs(options.now.getTime() - when.getTime()) > (options.maxSkewMs ?? 5 * 60_000)) return { ok: false, code: 'SignatureExpired', reason: `signature date ${amzDate} is too far from now` };
  const secret = options.secretOf(accessKeyId);
  if (!secret) return { ok: false, code: 'UnrecognizedClient', reason: `unknown access key ${accessKeyId}` };
  const token = headerValues(req.headers, 'x-amz-security-token');
  if (secret.sessionToken !== undefined && token !== secret.sessionToken) return { ok: false, code: 'ExpiredToken', reason: 'session token missing or not the one issued with this key' };
  const payloadHash = headerValues(req.headers, 'x-amz-content-sha256') ?? sha256Hex(req.body);
  if (payloadHash !== sha256Hex(req.body) && payloadHash !== 'UNSIGNED-PAYLOAD') return { ok: false, code: 'InvalidSignature', reason: 'x-amz-content-sha256 does not match the body' };
  const canonical = canonicalRequest(req, signedHeaders, options.normalize ?? true, payloadHash);
  const expected = createHmac('sha256', signingKey(secret.secretAccessKey, date, region, service)).update(stringToSign(amzDate, `${date}/${region}/${service}/aws4_request`, canonical)).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return { ok: false, code: 'InvalidSignature', reason: 'the request signature does not match', canonicalRequest: canonical };
  return { ok: true, accessKeyId, signedHeaders };
}
