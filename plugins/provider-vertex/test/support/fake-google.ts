/**
 * A loopback Google Cloud for the Vertex provider's tests: an OAuth token endpoint that checks a
 * service account's JWT grant (RS256 signature with the test key pair, issuer, audience, scope,
 * times), a metadata server (`Metadata-Flavor: Google` both ways), an STS token exchange for
 * workload identity federation, and the Vertex AI API, which accepts only live access tokens it
 * issued (a token can be expired early to model rotation mid-traffic). Claude requests are
 * refused as Vertex refuses them: an `anthropic_version` other than vertex-2023-10-16, or an
 * `anthropic-beta` Vertex does not offer (Google Cloud, "Claude models on Vertex AI").
 */
import { createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VERTEX_ANTHROPIC_BETAS } from '../../src/claude.js';
import { claudeCodeEvents, claudeCodeMessage } from '../../../provider-bedrock/test/support/claude-code-shape.js';

export const GOOGLE_TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';
const BETAS = new Set(VERTEX_ANTHROPIC_BETAS);

export interface IssuedToken {
  token: string;
  via: 'jwt' | 'metadata' | 'sts';
  expiresAt: number;
}

export interface SeenVertexRequest {
  path: string;
  token: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  /** The body's text as it arrived. */
  raw: string;
}

export type VertexBehaviour = { type: 'ok' } | { type: 'error'; status: number; body: unknown };

export interface FakeGoogle {
  url: string;
  /** PEM of the service account's private key (for the key file) and its email. */
  serviceAccount: { client_email: string; private_key: string; private_key_id: string };
  issued: IssuedToken[];
  seen: SeenVertexRequest[];
  /** The text of each Gemini answer Vertex wrote (JSON, or the whole SSE body). */
  geminiAnswers: string[];
  tokenRequests: { via: IssuedToken['via']; ok: boolean; reason?: string }[];
  /** Metadata server paths asked, in order. */
  metadataPaths: string[];
  /** Lifetime of the tokens handed out, in seconds. */
  expiresIn: number;
  /** The subject token the STS accepts. */
  stsSubjectToken: string;
  /** Makes every token issued so far invalid at once (rotation, revocation). */
  expireAll(): void;
  next(...behaviours: VertexBehaviour[]): void;
  close(): Promise<void>;
}

function b64urlJson(part: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function googleError(res: ServerResponse, status: number, grpc: string, message: string): void {
  sendJson(res, status, { error: { code: status, message, status: grpc } });
}

export async function startFakeGoogle(): Promise<FakeGoogle> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const queue: VertexBehaviour[] = [];
  const revoked = new Set<string>();
  const fake: FakeGoogle = {
    url: '',
    serviceAccount: { client_email: 'switchyard-test@fake-project.iam.gserviceaccount.com', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), private_key_id: 'key-1' },
    issued: [],
    seen: [],
    geminiAnswers: [],
    tokenRequests: [],
    metadataPaths: [],
    expiresIn: 3600,
    stsSubjectToken: `subject-${randomBytes(6).toString('hex')}`,
    expireAll: () => {
      for (const t of fake.issued) revoked.add(t.token);
    },
    next: (...behaviours) => void queue.push(...behaviours),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  const issue = (via: IssuedToken['via']): IssuedToken => {
    const token: IssuedToken = { token: `ya29.${via}.${randomBytes(8).toString('hex')}`, via, expiresAt: Date.now() + fake.expiresIn * 1000 };
    fake.issued.push(token);
    fake.tokenRequests.push({ via, ok: true });
    return token;
  };

  /** RFC 7523 JWT bearer grant, checked as Google's token endpoint checks it. */
  const jwtGrant = (form: URLSearchParams): string | undefined => {
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return 'unsupported grant_type';
    const [head, claims, signature] = (form.get('assertion') ?? '').split('.');
    if (!head || !claims || !signature) return 'assertion is not a JWT';
    const header = b64urlJson(head);
    if (header.alg !== 'RS256') return `alg ${String(header.alg)}`;
    const verifier = createVerify('RSA-SHA256');
    verifier.update(`${head}.${claims}`);
    if (!verifier.verify(publicKey, Buffer.from(signature, 'base64url'))) return 'invalid JWT signature';
    const c = b64urlJson(claims);
    const now = Date.now() / 1000;
    if (c.iss !== fake.serviceAccount.client_email) return `unknown issuer ${String(c.iss)}`;
    if (c.aud !== GOOGLE_TOKEN_AUDIENCE && c.aud !== `${fake.url}/token`) return `audience ${String(c.aud)}`;
    if (typeof c.scope !== 'string' || !c.scope.split(' ').includes('https://www.googleapis.com/auth/cloud-platform')) return 'scope';
    if (typeof c.exp !== 'number' || typeof c.iat !== 'number' || c.exp < now || c.iat > now + 60 || c.exp - c.iat > 3600) return 'JWT times';
    return undefined;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', fake.url);
    if (url.pathname.startsWith('/computeMetadata/')) {
      fake.metadataPaths.push(url.pathname);
      if (req.headers['metadata-flavor'] !== 'Google') return sendJson(res, 403, 'Missing Metadata-Flavor:Google header', { 'metadata-flavor': 'Google' });
      if (url.pathname === '/computeMetadata/v1/instance/service-accounts/default/token') {
        const t = issue('metadata');
        return sendJson(res, 200, { access_token: t.token, expires_in: fake.expiresIn, token_type: 'Bearer' }, { 'metadata-flavor': 'Google' });
      }
      if (url.pathname === '/computeMetadata/v1/project/project-id') {
        res.writeHead(200, { 'metadata-flavor': 'Google', 'content-type': 'application/text' });
        return void res.end('fake-project');
      }
      if (url.pathname === '/computeMetadata/v1/universe/universe-domain') {
        res.writeHead(200, { 'metadata-flavor': 'Google', 'content-type': 'application/text' });
        return void res.end('googleapis.com');
      }
      if (url.pathname === '/computeMetadata/v1/instance') {
        res.writeHead(200, { 'metadata-flavor': 'Google', 'content-type': 'application/text' });
        return void res.end('');
      }
      res.writeHead(404, { 'metadata-flavor': 'Google', 'content-type': 'application/text' });
      return void res.end('not found');
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const refusal = jwtGrant(new URLSearchParams(raw));
      if (refusal) {
        fake.tokenRequests.push({ via: 'jwt', ok: false, reason: refusal });
        return sendJson(res, 400, { error: 'invalid_grant', error_description: refusal });
      }
      const t = issue('jwt');
      return sendJson(res, 200, { access_token: t.token, expires_in: fake.expiresIn, token_type: 'Bearer' });
    }
    if (url.pathname === '/v1/sts/token' && req.method === 'POST') {
      const form = new URLSearchParams(raw.startsWith('{') ? (JSON.parse(raw) as Record<string, string>) : raw);
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:token-exchange' || form.get('subject_token') !== fake.stsSubjectToken) {
        fake.tokenRequests.push({ via: 'sts', ok: false, reason: 'subject token' });
        return sendJson(res, 400, { error: 'invalid_grant', error_description: 'The subject token is invalid.' });
      }
      const t = issue('sts');
      return sendJson(res, 200, { access_token: t.token, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', token_type: 'Bearer', expires_in: fake.expiresIn });
    }
    const m = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):(\w+)$/.exec(url.pathname);
    if (!m) return googleError(res, 404, 'NOT_FOUND', `no route ${url.pathname}`);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const issued = fake.issued.find((t) => t.token === bearer);
    if (!bearer || !issued || revoked.has(bearer) || issued.expiresAt <= Date.now()) {
      return googleError(res, 401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.');
    }
    const body = JSON.parse(raw || '{}') as Record<string, unknown>;
    fake.seen.push({ path: url.pathname + url.search, token: bearer, headers: req.headers, body, raw });
    const [, , , publisher, model, method] = m as unknown as string[];
    const behaviour = queue.shift() ?? { type: 'ok' };
    if (behaviour.type === 'error') return sendJson(res, behaviour.status, behaviour.body);
    if (publisher === 'anthropic') {
      if (model === 'count-tokens') return sendJson(res, 200, { input_tokens: Math.ceil(JSON.stringify(body.messages).length / 4) });
      if (body.anthropic_version !== 'vertex-2023-10-16') return googleError(res, 400, 'INVALID_ARGUMENT', 'anthropic_version: vertex-2023-10-16 is required');
      const betas = String(req.headers['anthropic-beta'] ?? '').split(',').filter(Boolean);
      const unknown = betas.find((b) => !BETAS.has(b));
      if (unknown) return sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: `Unexpected value(s) \`${unknown}\` for the \`anthropic-beta\` header.` } });
      const answerModel = model!.replace('@', '-');
      if (method === 'rawPredict') return sendJson(res, 200, claudeCodeMessage(answerModel));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const event of claudeCodeEvents(answerModel)) res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
      return void res.end();
    }
    if (method === 'countTokens') return sendJson(res, 200, { totalTokens: Math.ceil(JSON.stringify(body.contents).length / 4), totalBillableCharacters: 10 });
    const usage = { promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 };
    if (method === 'generateContent') {
      const answer = JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'Hello from Vertex.' }] }, finishReason: 'STOP' }], usageMetadata: usage, modelVersion: model });
      fake.geminiAnswers.push(answer);
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(answer);
    }
    const events = [
      `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'Hello ' }] } }], modelVersion: model })}\r\n\r\n`,
      `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'from Vertex.' }] }, finishReason: 'STOP' }], usageMetadata: usage, modelVersion: model })}\r\n\r\n`,
    ];
    fake.geminiAnswers.push(events.join(''));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const event of events) res.write(event);
    res.end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) googleError(res, 500, 'INTERNAL', String(error));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
