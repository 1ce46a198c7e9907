/**
 * AWS credentials for an endpoint: the standard chain of @aws-sdk/credential-providers
 * (environment, shared config and credentials files with profiles, SSO, web identity / IRSA,
 * ECS container credentials, EC2 instance metadata), kept and refreshed before they expire, so
 * no request waits on a refresh or goes out signed with credentials about to lapse.
 */
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { SwitchyardError, type EndpointConfig } from '@switchyard/core';
import { bedrockRegion } from './endpoint-url.js';

/** Refresh this long before expiry (the AWS SDKs use 5 minutes). */
export const REFRESH_BEFORE_MS = 5 * 60_000;

export interface CredentialOptions {
  /** Current time in ms (tests move it; the default is the wall clock). */
  now?: () => number;
  refreshBeforeMs?: number;
  /** Where credentials come from for an endpoint (default: the standard chain, with the endpoint's `options.profile`). */
  source?: (endpoint: EndpointConfig) => AwsCredentialIdentityProvider;
}

export function defaultCredentialSource(endpoint: EndpointConfig): AwsCredentialIdentityProvider {
  const profile = typeof endpoint.options?.profile === 'string' ? endpoint.options.profile : undefined;
  const region = bedrockRegion(endpoint);
  return fromNodeProviderChain({ ...(profile ? { profile } : {}), ...(region ? { clientConfig: { region } } : {}) });
}

/** One endpoint's credentials: fetched once, shared by concurrent requests, refreshed ahead of expiry. */
export class RefreshingCredentials {
  private current: AwsCredentialIdentity | undefined;
  private pending: Promise<AwsCredentialIdentity> | undefined;
  private stale = false;
  /** How many times credentials were fetched from the source. */
  fetches = 0;

  constructor(
    private readonly source: AwsCredentialIdentityProvider,
    private readonly now: () => number,
    private readonly refreshBeforeMs: number,
  ) {}

  get(): Promise<AwsCredentialIdentity> {
    const current = this.current;
    if (current && !this.stale && !this.due(current)) return Promise.resolve(current);
    this.stale = false;
    return (this.pending ??= this.refresh(current));
  }

  /** AWS refused these credentials (expired early, revoked): the next request gets fresh ones. */
  invalidate(): void {
    this.stale = true;
  }

  private due(credentials: AwsCredentialIdentity): boolean {
    return credentials.expiration !== undefined && credentials.expiration.getTime() - this.now() <= this.refreshBeforeMs;
  }

  private async refresh(previous: AwsCredentialIdentity | undefined): Promise<AwsCredentialIdentity> {
    try {
      this.fetches++;
      // forceRefresh: the chain's own cache would hand back the credentials this one judged due.
      const fresh = await this.source(previous ? { forceRefresh: true } : undefined);
      this.current = fresh;
      return fresh;
    } catch (cause) {
      // A failed refresh keeps credentials that have not expired yet: the next request tries again.
      if (previous?.expiration && previous.expiration.getTime() > this.now()) return previous;
      throw new SwitchyardError('auth', `no AWS credentials: ${(cause as Error)?.message ?? String(cause)}`, { provider: 'bedrock', retryable: false, cause });
    } finally {
      this.pending = undefined;
    }
  }
}

/**
 * Which credential source the chain will use for `endpoint`, read from the environment the
 * same way the chain reads it (for `switchyard validate`; SSO shows as the profile it is in).
 */
export function describeCredentialSource(endpoint: EndpointConfig, env: NodeJS.ProcessEnv = process.env): string {
  if (endpoint.apiKey || endpoint.apiKeys?.some(Boolean)) return 'Bedrock API key (bearer)';
  const profile = typeof endpoint.options?.profile === 'string' ? endpoint.options.profile : env.AWS_PROFILE;
  if (!profile && env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) return `environment (AWS_ACCESS_KEY_ID${env.AWS_SESSION_TOKEN ? ' with a session token' : ''})`;
  if (profile) return `shared config profile "${profile}"`;
  if (env.AWS_WEB_IDENTITY_TOKEN_FILE && env.AWS_ROLE_ARN) return `web identity (${env.AWS_ROLE_ARN}, token file ${env.AWS_WEB_IDENTITY_TOKEN_FILE})`;
  if (env.AWS_CONTAINER_CREDENTIALS_FULL_URI || env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI) return 'ECS container credentials';
  return 'shared config default profile, else EC2 instance metadata';
}
