/**
 * Ingress dialects: the client APIs the gateway speaks. The contract is core's `DialectV1`
 * (`@switchyard/core/dialect`); the gateway runs every dialect with one runner
 * (dialect-runner.ts). Adding a dialect is listing it in `GatewayOptions.dialects`.
 */
import type { StreamInfo } from '@switchyard/core';
import type { DialectV1, GatewayErrorReply, StreamEncoder, WireError } from '@switchyard/core/dialect';

export type { DialectV1 as Dialect, DialectRouteV1 as DialectRoute, StreamEncoder, WireError } from '@switchyard/core/dialect';
export { bearerCredential, bearerToken } from '@switchyard/core/dialect';

export type StreamEncoderFactory = (info: StreamInfo) => StreamEncoder;

export function renderError(dialect: DialectV1, reply: GatewayErrorReply, error?: unknown): WireError {
  return dialect.renderError ? dialect.renderError(reply, error) : reply;
}
