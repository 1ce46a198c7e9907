/**
 * Authorisation of a Bedrock request: a Bedrock API key as a bearer token, or a SigV4 signature
 * (@smithy/signature-v4, signing name `bedrock`) over the request exactly as it is sent.
 */
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import type { WireRequest } from '@switchyard/core';

export const SIGNING_NAME = 'bedrock';

export function createSigner(region: string, credentials: AwsCredentialIdentityProvider): SignatureV4 {
  return new SignatureV4({ service: SIGNING_NAME, region, credentials, sha256: Hash.bind(null, 'sha256'), uriEscapePath: true, applyChecksum: true });
}

/** The headers a SigV4 signature adds (authorization, x-amz-date, x-amz-content-sha256, x-amz-security-token). */
export async function sigV4Headers(signer: SignatureV4, wire: WireRequest): Promise<Record<string, string>> {
  const url = new URL(wire.url);
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) query[key] = value;
  const signed = await signer.sign({
    method: wire.method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query,
    headers: { ...wire.headers, host: url.host },
    body: wire.body,
  });
  const added: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) {
    if (name !== 'host' && wire.headers[name] !== value) added[name] = value;
  }
  return added;
}
