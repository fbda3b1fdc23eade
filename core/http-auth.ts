/**
 * Who is calling the HTTP transport: static bearer tokens (M1ND_HTTP_TOKEN, M1ND_HTTP_TOKENS) and,
 * when an authorization server is configured, JWT access tokens validated against its JWKS. Each
 * credential yields an AgentGrant (agent ids + role). Follows the resource-server part of the MCP
 * authorization spec: 401 with `WWW-Authenticate: Bearer resource_metadata="…"` and the RFC 9728
 * protected resource metadata. Tokens are compared as SHA-256 digests in constant time, never logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { ErrorCodes, M1ndError } from './errors.ts';
import { grantAll, type AgentGrant, type AgentRole } from './identity.ts';

/** One entry of M1ND_HTTP_TOKENS: `{"<token>": {"agents": ["alice", "ci-*"], "role": "write"}}`. */
export interface TokenSpec {
  agents: string[];
  role: AgentRole;
}

/** An OAuth authorization server whose JWT access tokens this server accepts. */
export interface OAuthOptions {
  /** The issuer URL (`iss` claim); also where the JWKS is discovered unless `jwksUri` is given. */
  issuer: string;
  /** Accepted `aud` value (default: the resource URL, i.e. the MCP endpoint URL). */
  audience?: string;
  /** Claim holding the agent id (a string) or ids (an array) the token may act as (default `sub`). */
  agentClaim?: string;
  /** JWKS URL (default: `jwks_uri` of the issuer's authorization server metadata). */
  jwksUri?: string;
  /** The resource identifier clients ask tokens for (default: the MCP endpoint URL). */
  resource?: string;
}

/** A request's credential checked: the grant, or why it was refused (`invalid` when a token was sent but not accepted). */
export type AuthOutcome = { ok: true; grant: AgentGrant } | { ok: false; invalid: boolean; message: string };

/** The scopes a JWT carries to get each role. */
export const WRITE_SCOPE = 'm1nd:write';
export const READ_SCOPE = 'm1nd:read';
const METADATA_PATH = '/.well-known/oauth-protected-resource';

interface TokenEntry {
  digest: Buffer;
  grant: AgentGrant;
}

/** Checks the Authorization header of each request and describes the server as a protected resource. */
export class HttpAuthenticator {
  private readonly entries: TokenEntry[];
  private jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  private readonly resource: string;

  constructor(
    options: { token?: string; tokens?: Record<string, TokenSpec>; oauth?: OAuthOptions },
    private readonly endpointUrl: string,
  ) {
    this.entries = [];
    if (options.token) this.entries.push({ digest: digest(options.token), grant: grantAll('M1ND_HTTP_TOKEN') });
    Object.entries(options.tokens ?? {}).forEach(([token, spec], i) => {
      this.entries.push({ digest: digest(token), grant: { agents: spec.agents, role: spec.role, subject: `M1ND_HTTP_TOKENS[${i}]` } });
    });
    this.oauth = options.oauth;
    this.resource = options.oauth?.resource ?? endpointUrl;
  }

  private readonly oauth: OAuthOptions | undefined;

  /** Whether requests must carry a credential (any token or an authorization server configured). */
  get required(): boolean {
    return this.entries.length > 0 || this.oauth !== undefined;
  }

  /** The grant of a request's Authorization header; without required credentials, every id with write. */
  async authenticate(authorization: string | undefined): Promise<AuthOutcome> {
    if (!this.required) return { ok: true, grant: grantAll('loopback') };
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization?.trim() ?? '');
    if (!match) return { ok: false, invalid: false, message: 'missing bearer token' };
    const presented = digest(match[1]);
    let found: AgentGrant | undefined;
    // Every entry is compared, so the time taken says nothing about which entry (if any) matched.
    for (const entry of this.entries) if (timingSafeEqual(presented, entry.digest) && !found) found = entry.grant;
    if (found) return { ok: true, grant: found };
    if (this.oauth) return this.verifyJwt(match[1], this.oauth);
    return { ok: false, invalid: true, message: 'bearer token not accepted' };
  }

  /** The `WWW-Authenticate` value of a 401 (RFC 6750 + RFC 9728 `resource_metadata`). */
  challenge(invalid: boolean): string {
    const parts = ['realm="m1nd"'];
    if (this.oauth) {
      parts.push(`resource_metadata="${this.metadataUrl()}"`, `scope="${READ_SCOPE} ${WRITE_SCOPE}"`);
    }
    if (invalid) parts.push('error="invalid_token"');
    return `Bearer ${parts.join(', ')}`;
  }

  /** The request paths that serve the protected resource metadata (RFC 9728 §3.1), or none without an authorization server. */
  metadataPaths(): string[] {
    if (!this.oauth) return [];
    const resourcePath = new URL(this.resource).pathname.replace(/\/+$/, '');
    return resourcePath ? [METADATA_PATH, `${METADATA_PATH}${resourcePath}`] : [METADATA_PATH];
  }

  /** The RFC 9728 protected resource metadata document. */
  metadata(): Record<string, unknown> {
    return {
      resource: this.resource,
      authorization_servers: [this.oauth!.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: [READ_SCOPE, WRITE_SCOPE],
      resource_name: 'm1nd',
    };
  }

  private metadataUrl(): string {
    const u = new URL(this.resource);
    const p = u.pathname.replace(/\/+$/, '');
    return `${u.origin}${METADATA_PATH}${p}`;
  }

  private async verifyJwt(token: string, oauth: OAuthOptions): Promise<AuthOutcome> {
    let payload: JWTPayload;
    try {
      this.jwks ??= createRemoteJWKSet(new URL(oauth.jwksUri ?? (await discoverJwksUri(oauth.issuer))));
      ({ payload } = await jwtVerify(token, this.jwks, { issuer: oauth.issuer, audience: oauth.audience ?? this.resource }));
    } catch (error) {
      // jose's messages name the failed check (expired, audience, signature), never the token.
      return { ok: false, invalid: true, message: `access token rejected: ${(error as Error).message}` };
    }
    const claim = payload[oauth.agentClaim ?? 'sub'];
    const agents = (Array.isArray(claim) ? claim : [claim]).filter((a): a is string => typeof a === 'string' && a !== '');
    if (agents.length === 0) return { ok: false, invalid: true, message: `access token has no agent id in claim "${oauth.agentClaim ?? 'sub'}"` };
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(/\s+/) : Array.isArray(payload.scp) ? (payload.scp as string[]) : [];
    return { ok: true, grant: { agents, role: scopes.includes(WRITE_SCOPE) ? 'write' : 'read', subject: `jwt:${String(payload.sub ?? agents[0]).slice(0, 80)}` } };
  }
}

/** The issuer's `jwks_uri` from its OAuth (RFC 8414) or OpenID metadata. */
async function discoverJwksUri(issuer: string): Promise<string> {
  const base = issuer.replace(/\/+$/, '');
  for (const wellKnown of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    const res = await fetch(`${base}${wellKnown}`).catch(() => undefined);
    if (!res?.ok) continue;
    const doc = (await res.json().catch(() => ({}))) as { jwks_uri?: unknown };
    if (typeof doc.jwks_uri === 'string') return doc.jwks_uri;
  }
  throw new Error(`no jwks_uri in the metadata of issuer ${issuer}`);
}

/**
 * Parses M1ND_HTTP_TOKENS: inline JSON (starts with `{`) or the path of a JSON file, mapping each
 * token to `{agents, role}`. Throws CONFIG_INVALID naming the bad entry (never the token).
 */
export function parseTokenTable(raw: string): Record<string, TokenSpec> {
  const text = raw.trim().startsWith('{') ? raw : readTokenFile(raw.trim());
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalid(`M1ND_HTTP_TOKENS is not valid JSON: ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid('M1ND_HTTP_TOKENS must be a JSON object of token → {agents, role}');
  const out: Record<string, TokenSpec> = {};
  Object.entries(parsed as Record<string, unknown>).forEach(([token, spec], i) => {
    const s = spec as { agents?: unknown; role?: unknown } | null;
    if (token.length < 16) throw invalid(`M1ND_HTTP_TOKENS entry ${i}: the token must be at least 16 characters`);
    if (!s || !Array.isArray(s.agents) || s.agents.length === 0 || !s.agents.every((a) => typeof a === 'string' && a !== '' && a !== '*')) {
      throw invalid(`M1ND_HTTP_TOKENS entry ${i}: "agents" must be a non-empty list of agent ids or "prefix-*" patterns`);
    }
    if (s.role !== 'read' && s.role !== 'write') throw invalid(`M1ND_HTTP_TOKENS entry ${i}: "role" must be "read" or "write"`);
    out[token] = { agents: s.agents as string[], role: s.role };
  });
  return out;
}

function readTokenFile(file: string): string {
  if (!existsSync(file)) throw invalid(`M1ND_HTTP_TOKENS is neither inline JSON nor an existing file`);
  return readFileSync(file, 'utf8');
}

function invalid(message: string): M1ndError {
  return new M1ndError(ErrorCodes.CONFIG_INVALID, message, {
    hint: 'M1ND_HTTP_TOKENS holds {"<token>": {"agents": ["alice", "ci-*"], "role": "write"}} inline or in a JSON file',
  });
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** The credential options of `serveHttp` from the environment, the config's `http` section and the CLI flag (environment wins). */
export function httpAuthOptions(
  env: Record<string, string | undefined>,
  cfg: { allowAgentSwitch?: boolean; auth?: OAuthOptions },
  allowAgentSwitchFlag: boolean,
): { token?: string; tokens?: Record<string, TokenSpec>; oauth?: OAuthOptions; allowAgentSwitch: boolean } {
  const issuer = env.M1ND_HTTP_AUTH_ISSUER || cfg.auth?.issuer;
  const oauth: OAuthOptions | undefined = issuer
    ? {
        ...cfg.auth,
        issuer,
        audience: env.M1ND_HTTP_AUTH_AUDIENCE || cfg.auth?.audience,
        agentClaim: env.M1ND_HTTP_AUTH_AGENT_CLAIM || cfg.auth?.agentClaim,
        jwksUri: env.M1ND_HTTP_AUTH_JWKS_URI || cfg.auth?.jwksUri,
      }
    : undefined;
  const switchEnv = env.M1ND_HTTP_ALLOW_AGENT_SWITCH;
  return {
    token: env.M1ND_HTTP_TOKEN || undefined,
    tokens: env.M1ND_HTTP_TOKENS ? parseTokenTable(env.M1ND_HTTP_TOKENS) : undefined,
    oauth,
    allowAgentSwitch: allowAgentSwitchFlag || (switchEnv !== undefined ? /^(1|true|yes|on)$/i.test(switchEnv) : cfg.allowAgentSwitch === true),
  };
}
