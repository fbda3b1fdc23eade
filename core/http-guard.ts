/**
 * The HTTP transport's first check on every request, before credentials, MCP or plugin routes: the
 * Host and Origin allow-lists (DNS-rebinding protection), and the address helpers they are built from.
 */
import type http from 'node:http';
import { ErrorCodes, type ErrorCode } from './errors.ts';

export const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Why a request was refused before reaching MCP. */
export interface Refusal {
  status: 403;
  code: ErrorCode;
  rule: string;
  message: string;
  hint: string;
}

/** The Host/Origin allow-lists (DNS-rebinding protection); credentials are HttpAuthenticator's. */
export class RequestGuard {
  readonly hosts: string[];
  readonly origins: string[];
  private readonly hostSet: Set<string>;
  private readonly originSet: Set<string>;

  constructor(port: number, bindHost: string, extraHosts: string[], extraOrigins: string[]) {
    const names = [...LOOPBACK_NAMES];
    // A specific non-loopback bind address is how remote clients name the server.
    if (!isWildcardAddress(bindHost) && !LOOPBACK_NAMES.includes(urlHostFor(bindHost))) names.push(urlHostFor(bindHost));
    this.hosts = unique([...names.map((n) => `${n}:${port}`), ...(port === 80 ? names : []), ...extraHosts].map((h) => h.toLowerCase()));
    const loopbackOrigins = LOOPBACK_NAMES.flatMap((n) => [`http://${n}:${port}`, `https://${n}:${port}`]);
    this.origins = unique([...loopbackOrigins, ...extraOrigins].map((o) => o.toLowerCase().replace(/\/+$/, '')));
    this.hostSet = new Set(this.hosts);
    this.originSet = new Set(this.origins);
  }

  /** The first rule the request breaks, or undefined when it may proceed. */
  check(req: http.IncomingMessage): Refusal | undefined {
    const hostHeader = headerValue(req, 'host');
    if (hostHeader === undefined || !this.hostSet.has(hostHeader.toLowerCase())) {
      return {
        status: 403,
        code: ErrorCodes.HTTP_FORBIDDEN,
        rule: 'host',
        message: `Host header ${JSON.stringify(clip(hostHeader ?? ''))} is not allowed (DNS-rebinding protection)`,
        hint: `connect through one of ${this.hosts.join(', ')} or add the name to allowedHosts`,
      };
    }
    const origin = headerValue(req, 'origin');
    if (origin !== undefined && !this.originSet.has(origin.toLowerCase())) {
      return {
        status: 403,
        code: ErrorCodes.HTTP_FORBIDDEN,
        rule: 'origin',
        message: `Origin ${JSON.stringify(clip(origin))} is not allowed (DNS-rebinding protection)`,
        hint: 'browser pages may only call m1nd from a loopback origin on its own port, or one listed in allowedOrigins',
      };
    }
    return undefined;
  }
}

/** A header's value; node keeps the first of repeated singleton headers such as Host. */
export function headerValue(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Whether an address only accepts connections from this machine. */
export function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase().replace(/^\[|\]$/g, '');
  return a === 'localhost' || a === '::1' || /^127\.\d+\.\d+\.\d+$/.test(a) || /^::ffff:127\.\d+\.\d+\.\d+$/.test(a);
}

export function isWildcardAddress(address: string): boolean {
  return ['0.0.0.0', '::', '[::]', '::0'].includes(address);
}

/** How a bind address appears in a URL: wildcards become the loopback name, IPv6 gets brackets. */
export function urlHostFor(bindHost: string): string {
  if (bindHost === '0.0.0.0') return '127.0.0.1';
  if (isWildcardAddress(bindHost)) return '[::1]';
  return bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost;
}

export function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** Keeps attacker-controlled header values short in messages and logs. */
export function clip(value: string): string {
  return value.length > 120 ? `${value.slice(0, 120)}…` : value;
}
