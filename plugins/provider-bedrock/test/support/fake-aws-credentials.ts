/**
 * Loopback AWS credential services for the chain's remote sources: STS
 * AssumeRoleWithWebIdentity (query protocol, XML answer; reached through AWS_ENDPOINT_URL_STS),
 * ECS container credentials (AWS_CONTAINER_CREDENTIALS_FULL_URI, with its authorization token)
 * and EC2 instance metadata with IMDSv2 session tokens (AWS_EC2_METADATA_SERVICE_ENDPOINT).
 * Every key handed out is registered with the fake Bedrock, with its session token and expiry.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SecretOf } from './sigv4-verify.js';

export interface IssuedCredentials {
  via: 'sts' | 'ecs' | 'imds';
  accessKeyId: string;
  expiration: Date;
}

export interface FakeAwsCredentials {
  url: string;
  issued: IssuedCredentials[];
  /** Lifetime of the credentials handed out. */
  lifetimeMs: number;
  webIdentityToken: string;
  ecsAuthorization: string;
  refused: string[];
  close(): Promise<void>;
}

export async function startFakeAwsCredentials(register: (accessKeyId: string, secret: SecretOf) => void): Promise<FakeAwsCredentials> {
  const imdsTokens = new Set<string>();
  const fake: FakeAwsCredentials = {
    url: '',
    issued: [],
    lifetimeMs: 4 * 60_000,
    webIdentityToken: `eyJ.web-identity.${randomBytes(4).toString('hex')}`,
    ecsAuthorization: `ecs-auth-${randomBytes(4).toString('hex')}`,
    refused: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const issue = (via: IssuedCredentials['via']) => {
    const accessKeyId = `ASIA${via.toUpperCase()}${randomBytes(5).toString('hex').toUpperCase()}`;
    const secretAccessKey = randomBytes(20).toString('base64');
    const sessionToken = `session/${randomBytes(16).toString('base64')}`;
    const expiration = new Date(Date.now() + fake.lifetimeMs);
    register(accessKeyId, { secretAccessKey, sessionToken });
    fake.issued.push({ via, accessKeyId, expiration });
    return { accessKeyId, secretAccessKey, sessionToken, expiration };
  };
  const refuse = (res: ServerResponse, status: number, why: string) => {
    fake.refused.push(why);
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(why);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const url = new URL(req.url ?? '/', fake.url);
    if (url.pathname === '/' && req.method === 'POST') {
      const form = new URLSearchParams(raw);
      if (form.get('Action') !== 'AssumeRoleWithWebIdentity') return refuse(res, 400, `sts action ${form.get('Action')}`);
      if (form.get('WebIdentityToken') !== fake.webIdentityToken) return refuse(res, 400, 'web identity token');
      if (!form.get('RoleArn')?.startsWith('arn:aws:iam::')) return refuse(res, 400, 'role arn');
      const c = issue('sts');
      res.writeHead(200, { 'content-type': 'text/xml' });
      return void res.end(`<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>${c.accessKeyId}</AccessKeyId><SecretAccessKey>${c.secretAccessKey}</SecretAccessKey><SessionToken>${c.sessionToken}</SessionToken><Expiration>${c.expiration.toISOString()}</Expiration></Credentials><AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/switchyard/session</Arn><AssumedRoleId>AROA:session</AssumedRoleId></AssumedRoleUser><SubjectFromWebIdentityToken>system:serviceaccount:ns:switchyard</SubjectFromWebIdentityToken></AssumeRoleWithWebIdentityResult><ResponseMetadata><RequestId>fake</RequestId></ResponseMetadata></AssumeRoleWithWebIdentityResponse>`);
    }
    if (url.pathname === '/ecs/credentials') {
      if (req.headers.authorization !== fake.ecsAuthorization) return refuse(res, 401, 'ecs authorization');
      const c = issue('ecs');
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ AccessKeyId: c.accessKeyId, SecretAccessKey: c.secretAccessKey, Token: c.sessionToken, Expiration: c.expiration.toISOString(), RoleArn: 'arn:aws:iam::123456789012:role/ecs' }));
    }
    if (url.pathname === '/latest/api/token' && req.method === 'PUT') {
      if (!req.headers['x-aws-ec2-metadata-token-ttl-seconds']) return refuse(res, 400, 'imds token ttl');
      const token = randomBytes(12).toString('hex');
      imdsTokens.add(token);
      res.writeHead(200, { 'content-type': 'text/plain', 'x-aws-ec2-metadata-token-ttl-seconds': '21600' });
      return void res.end(token);
    }
    if (url.pathname.startsWith('/latest/meta-data/iam/security-credentials')) {
      if (!imdsTokens.has(String(req.headers['x-aws-ec2-metadata-token']))) return refuse(res, 401, 'imds session token');
      const rest = url.pathname.replace(/^\/latest\/meta-data\/iam\/security-credentials(-extended)?\/?/, '');
      res.writeHead(200, { 'content-type': 'text/plain' });
      if (rest === '') return void res.end('switchyard-instance-role');
      const c = issue('imds');
      return void res.end(JSON.stringify({ Code: 'Success', Type: 'AWS-HMAC', AccessKeyId: c.accessKeyId, SecretAccessKey: c.secretAccessKey, Token: c.sessionToken, Expiration: c.expiration.toISOString(), LastUpdated: new Date().toISOString() }));
    }
    return refuse(res, 404, `no route ${req.method} ${url.pathname}`);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
