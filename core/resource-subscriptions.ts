/**
 * Resource subscriptions of every connection and the watches that serve them. Apart from
 * core/mcp-resources.ts (the request handlers) so that a host that never connects a client (`m1nd
 * call`) does not load the SDK's server and protocol schemas.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Generation } from './generation.ts';

/** Who is subscribed to what, and the watches that serve them. */
export class ResourceSubscriptions {
  private readonly byServer = new Map<Server, Set<string>>();
  private readonly watches = new Map<string, () => void>();

  constructor(private readonly current: () => Generation) {}

  subscribe(server: Server, uri: string): void {
    let set = this.byServer.get(server);
    if (!set) this.byServer.set(server, (set = new Set()));
    set.add(uri);
    this.startWatch(uri);
  }

  unsubscribe(server: Server, uri: string): void {
    this.byServer.get(server)?.delete(uri);
    this.stopUnused();
  }

  /** A connection closed: its subscriptions go. */
  drop(server: Server): void {
    this.byServer.delete(server);
    this.stopUnused();
  }

  /** Sends resources/updated to every connection subscribed to `uri`. */
  updated(uri: string): void {
    for (const [server, uris] of this.byServer) if (uris.has(uri)) server.sendResourceUpdated({ uri }).catch(() => undefined);
  }

  /** A new generation serves: watches restart on its resources. */
  rewatch(): void {
    for (const stop of this.watches.values()) stop();
    this.watches.clear();
    for (const uris of this.byServer.values()) for (const uri of uris) this.startWatch(uri);
  }

  /** Stops every watch (host shutdown). */
  close(): void {
    for (const stop of this.watches.values()) stop();
    this.watches.clear();
    this.byServer.clear();
  }

  private startWatch(uri: string): void {
    if (this.watches.has(uri)) return;
    const hit = this.current().resources.resolve(uri);
    if (!hit?.record.watch) return;
    this.watches.set(uri, hit.record.watch(hit.vars, () => this.updated(uri)));
  }

  private stopUnused(): void {
    const wanted = new Set<string>();
    for (const uris of this.byServer.values()) for (const uri of uris) wanted.add(uri);
    for (const [uri, stop] of this.watches) {
      if (wanted.has(uri)) continue;
      stop();
      this.watches.delete(uri);
    }
  }
}
