/**
 * The fake Bedrock's own SigV4 verifier against AWS's published Signature Version 4 test suite
 * (test/sigv4-test-suite: awslabs/aws-c-auth tests/aws-signing-test-suite/v4, Apache-2.0).
 * Every vector's canonical request and string to sign are reproduced, its signature accepted,
 * and the same request with one signed byte changed refused.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalRequest, stringToSign, verifySigV4, type SignedRequestView } from './support/sigv4-verify.js';

const SUITE = new URL('./sigv4-test-suite/', import.meta.url);
const vectors = readdirSync(SUITE, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);

/** A raw HTTP/1.1 request from the suite: folded header lines continue the previous value. */
function parseRaw(text: string): SignedRequestView {
  const split = text.indexOf('\n\n');
  const head = split < 0 ? text : text.slice(0, split);
  const body = split < 0 ? '' : text.slice(split + 2);
  const [requestLine, ...lines] = head.split('\n');
  const m = /^(\S+) (.*) HTTP\/1\.1$/.exec(requestLine!)!;
  const headers: [string, string][] = [];
  for (const line of lines) {
    if (/^\s/.test(line) && headers.length > 0) headers[headers.length - 1]![1] += `\n${line}`;
    else if (line.length > 0) {
      const colon = line.indexOf(':');
      headers.push([line.slice(0, colon), line.slice(colon + 1)]);
    }
  }
  return { method: m[1]!, target: m[2]!, headers, body: Buffer.from(body, 'utf8') };
}

function read(name: string, file: string): string {
  return readFileSync(new URL(`${name}/${file}`, SUITE), 'utf8');
}

describe('SigV4 verifier: AWS Signature Version 4 test suite', () => {
  it('holds the whole published v4 suite', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(38);
  });

  for (const name of vectors) {
    it(name, () => {
      const context = JSON.parse(read(name, 'context.json')) as { credentials: { access_key_id: string; secret_access_key: string; token?: string }; normalize: boolean; region: string; service: string; timestamp: string };
      const signed = parseRaw(read(name, 'header-signed-request.txt'));
      const authorization = signed.headers.find(([n]) => n.toLowerCase() === 'authorization')![1];
      const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)![1]!.split(';');
      const payload = signed.headers.find(([n]) => n.toLowerCase() === 'x-amz-content-sha256')?.[1];
      const canonical = canonicalRequest(signed, signedHeaders, context.normalize, payload ?? read(name, 'header-canonical-request.txt').split('\n').at(-1)!);
      expect(canonical).toBe(read(name, 'header-canonical-request.txt'));
      const amzDate = signed.headers.find(([n]) => n.toLowerCase() === 'x-amz-date')![1];
      expect(stringToSign(amzDate, `${amzDate.slice(0, 8)}/${context.region}/${context.service}/aws4_request`, canonical)).toBe(read(name, 'header-string-to-sign.txt'));

      const { access_key_id, secret_access_key, token } = context.credentials;
      const options = { region: context.region, service: context.service, normalize: context.normalize, now: new Date(context.timestamp), secretOf: (id: string) => (id === access_key_id ? { secretAccessKey: secret_access_key, ...(token ? { sessionToken: token } : {}) } : undefined) };
      expect(verifySigV4(signed, options)).toMatchObject({ ok: true, accessKeyId: access_key_id });

      const tampered = { ...signed, headers: signed.headers.map(([n, v]) => (n.toLowerCase() === 'host' ? ([n, `x${v}`] as const) : ([n, v] as const))) };
      expect(verifySigV4(tampered, options)).toMatchObject({ ok: false, code: 'InvalidSignature' });
      expect(verifySigV4(signed, { ...options, secretOf: (id) => (id === access_key_id ? { secretAccessKey: `${secret_access_key}x`, ...(token ? { sessionToken: token } : {}) } : undefined) })).toMatchObject({ ok: false });
      expect(verifySigV4(signed, { ...options, now: new Date(Date.parse(context.timestamp) + 6 * 60_000) })).toMatchObject({ ok: false, code: 'SignatureExpired' });
    });
  }
});
