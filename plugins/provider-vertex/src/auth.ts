/**
 * Google credentials for a Vertex endpoint through google-auth-library: a service-account key
 * file (`options.keyFile`, or GOOGLE_APPLICATION_CREDENTIALS), Application Default Credentials,
 * the metadata server (GCE_METADATA_HOST honoured), or workload identity federation
 * (`external_account` files). The library keeps the access token and refreshes it ahead of
 * expiry; a token the API refused is dropped so the next request gets a fresh one.
 *
 * A service-account file's token request goes to the file's own `token_uri` (private endpoints,
 * other universes, tests): the library posts the JWT grant to Google's URL whatever the file
 * says, so its transporter is given one that sends it where the file does.
 */
import { readFileSync } from 'node:fs';
import { Gaxios, type GaxiosOptions, type GaxiosPromise } from 'gaxios';
import { GoogleAuth, type AuthClient } from 'google-auth-library';
import { isSwitchyardError, SwitchyardError, type EndpointConfig } from '@switchyard/core';
import { vertexProject } from './location.js';

export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
/** Where google-auth-library sends a service account's JWT grant. */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** A transporter that sends the JWT grant to the key file's `token_uri`. */
class TokenUriTransporter extends Gaxios {
  constructor(private readonly tokenUri: string) {
    super();
  }

  override request<T>(options: GaxiosOptions = {}): GaxiosPromise<T> {
    const url = options.url?.toString();
    return super.request<T>(url === GOOGLE_TOKEN_URL ? { ...options, url: this.tokenUri } : options);
  }
}

export function credentialFile(endpoint: EndpointConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const configured = endpoint.options?.keyFile;
  return typeof configured === 'string' ? configured : env.GOOGLE_APPLICATION_CREDENTIALS || undefined;
}

function readCredentialFile(file: string): { type?: string; token_uri?: string; client_email?: string; token_url?: string } {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { type?: string; token_uri?: string };
  } catch (cause) {
    throw new SwitchyardError('auth', `vertex: cannot read the credentials file ${file}: ${(cause as Error).message}`, { provider: 'vertex', retryable: false, cause });
  }
}

/** One endpoint's Google credentials: an access token per request, refreshed by the library. */
export class VertexCredentials {
  private client: Promise<AuthClient> | undefined;
  private stale = false;

  constructor(private readonly endpoint: EndpointConfig) {}

  private auth(): GoogleAuth {
    const file = credentialFile(this.endpoint);
    const json = file ? readCredentialFile(file) : undefined;
    const tokenUri = json?.type === 'service_account' && json.token_uri && json.token_uri !== GOOGLE_TOKEN_URL ? json.token_uri : undefined;
    // The project is the endpoint's: the library need not look for one (it would run the gcloud CLI).
    const projectId = vertexProject(this.endpoint);
    return new GoogleAuth({ ...(file ? { keyFilename: file } : {}), ...(projectId ? { projectId } : {}), scopes: [CLOUD_PLATFORM_SCOPE], ...(tokenUri ? { clientOptions: { transporter: new TokenUriTransporter(tokenUri) } } : {}) });
  }

  async token(): Promise<string> {
    try {
      const client = await (this.client ??= this.auth().getClient());
      if (this.stale) {
        this.stale = false;
        // Marked as expired (not cleared: a JWT client keeps its refresh placeholder), so the library refreshes.
        client.credentials = { ...client.credentials, expiry_date: 1 };
      }
      const { token } = await client.getAccessToken();
      if (!token) throw new Error('google-auth-library returned no access token');
      return token;
    } catch (cause) {
      this.client = undefined;
      if (isSwitchyardError(cause)) throw cause;
      throw new SwitchyardError('auth', `vertex: no Google access token for ${this.endpoint.name}: ${(cause as Error)?.message ?? String(cause)}`, { provider: 'vertex', retryable: false, cause });
    }
  }

  /** The API refused the token (revoked, expired early): the next request fetches a new one. */
  invalidate(): void {
    this.stale = true;
  }
}

/** Which credential source google-auth-library will use for `endpoint` (for `switchyard validate`). */
export function describeGoogleCredentialSource(endpoint: EndpointConfig, env: NodeJS.ProcessEnv = process.env): string {
  if (endpoint.apiKey || endpoint.apiKeys?.some(Boolean)) return 'Vertex AI API key (express mode)';
  const file = credentialFile(endpoint, env);
  if (file) {
    let type = 'unreadable';
    try {
      type = String((JSON.parse(readFileSync(file, 'utf8')) as { type?: unknown }).type);
    } catch {
      // reported as unreadable
    }
    const what = type === 'service_account' ? 'service-account key file' : type === 'external_account' ? 'workload identity federation (external_account)' : type === 'authorized_user' ? 'user credentials (gcloud auth application-default login)' : `credentials file of type ${type}`;
    return `${what} ${file}`;
  }
  if (env.GCE_METADATA_HOST || env.GCE_METADATA_IP) return `metadata server at ${env.GCE_METADATA_HOST ?? env.GCE_METADATA_IP}`;
  return 'Application Default Credentials (gcloud file, else the metadata server)';
}
