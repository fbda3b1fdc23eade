/**
 * MCP resources, prompts and completions, served from what plugins registered (core/resources.ts)
 * on the generation serving at the time of each request. Subscriptions are per connection; a
 * resource with `watch` is watched while anyone is subscribed to it.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { ErrorCodes, M1ndError } from './errors.ts';
import type { Generation } from './generation.ts';
import type { ResourceSubscriptions } from './resource-subscriptions.ts';
import type { ReadResult, ResourceContent, ResourceListing, ResourceRequestContext } from './resources.ts';

/** MCP's code for an unknown resource. */
const RESOURCE_NOT_FOUND = -32002;
/** Longest URI, argument value or prompt name accepted (bounded before any work). */
const MAX_TEXT = 4096;
/** Completion values returned at most (MCP caps a response at 100). */
const MAX_COMPLETIONS = 100;
/** Entries per resources/list page. */
const PAGE = 200;

/** Capabilities this module serves (merged into the server's declared capabilities). */
export const RESOURCE_CAPABILITIES = {
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
} as const;

/** Installs the resources, prompts and completion handlers on one connection's server. */
export function installResourceHandlers(server: Server, current: () => Generation, subscriptions: ResourceSubscriptions): void {
  server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
    const ctx = contextOf(extra);
    const all: ResourceListing[] = [];
    for (const r of current().resources.allResources()) {
      // A listing that fails (its store not ready, say) leaves the others listed.
      if (r.list) all.push(...(await Promise.resolve().then(() => r.list!(ctx)).catch(() => [])));
      else if (!r.template.isTemplate) all.push({ uri: r.uri, name: r.name, title: r.title, description: r.description, mimeType: r.mimeType });
    }
    const start = Number(request.params?.cursor ?? 0);
    if (!Number.isInteger(start) || start < 0) throw new McpError(ErrorCode.InvalidParams, 'invalid cursor: pass the nextCursor of the previous page');
    const page = all.slice(start, start + PAGE);
    return { resources: page, ...(start + PAGE < all.length ? { nextCursor: String(start + PAGE) } : {}) };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: current()
      .resources.allResources()
      .filter((r) => r.template.isTemplate)
      .map((r) => ({ uriTemplate: r.uri, name: r.name, title: r.title, description: r.description, mimeType: r.mimeType })),
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const uri = bounded(request.params.uri, 'uri');
    const hit = current().resources.resolve(uri);
    if (!hit) throw notFound(uri);
    const result = await guarded(() => hit.record.read(hit.vars, contextOf(extra)));
    if (result === undefined) throw notFound(uri);
    return { contents: contentsOf(uri, hit.record.mimeType, result) };
  });

  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const uri = bounded(request.params.uri, 'uri');
    if (!current().resources.resolve(uri)) throw notFound(uri);
    subscriptions.subscribe(server, uri);
    return {};
  });

  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.unsubscribe(server, bounded(request.params.uri, 'uri'));
    return {};
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: current()
      .resources.allPrompts()
      .map((p) => ({ name: p.name, title: p.title, description: p.description, arguments: p.arguments?.map((a) => ({ name: a.name, description: a.description, required: a.required })) })),
  }));

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const name = bounded(request.params.name, 'name');
    const prompt = current().resources.prompt(name);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `unknown prompt "${name}"; prompts/list names the prompts this server has`);
    const args = request.params.arguments ?? {};
    for (const [k, v] of Object.entries(args)) bounded(v, `argument ${k}`);
    const missing = (prompt.arguments ?? []).filter((a) => a.required && (args[a.name] === undefined || args[a.name] === ''));
    if (missing.length > 0) throw new McpError(ErrorCode.InvalidParams, `prompt "${name}" needs argument${missing.length > 1 ? 's' : ''} ${missing.map((a) => a.name).join(', ')}`);
    const messages = await guarded(() => prompt.get(args, contextOf(extra)));
    return { description: prompt.description, messages };
  });

  server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
    const { ref, argument } = request.params;
    const prefix = bounded(argument.value, 'argument value');
    let completer;
    if (ref.type === 'ref/prompt') {
      const prompt = current().resources.prompt(ref.name);
      if (!prompt) throw new McpError(ErrorCode.InvalidParams, `unknown prompt "${ref.name}"`);
      completer = prompt.arguments?.find((a) => a.name === argument.name)?.complete;
    } else {
      const resource = current().resources.byTemplate(ref.uri);
      if (!resource) throw new McpError(ErrorCode.InvalidParams, `unknown resource template "${ref.uri}"; resources/templates/list names them`);
      completer = resource.complete?.[argument.name];
    }
    const values = completer ? await guarded(() => completer(prefix, contextOf(extra))) : [];
    return { completion: { values: values.slice(0, MAX_COMPLETIONS), total: values.length, hasMore: values.length > MAX_COMPLETIONS } };
  });
}

function contextOf(extra: { sessionId?: string; signal?: AbortSignal }): ResourceRequestContext {
  return { connectionId: extra.sessionId, signal: extra.signal };
}

function bounded(value: string, what: string): string {
  if (typeof value !== 'string' || value.length > MAX_TEXT) throw new McpError(ErrorCode.InvalidParams, `${what} must be a string of at most ${MAX_TEXT} characters`);
  return value;
}

function notFound(uri: string): McpError {
  return new McpError(RESOURCE_NOT_FOUND, 'Resource not found', { uri: uri.slice(0, 200) });
}

/** Runs a plugin callback; its M1ndErrors become JSON-RPC errors that keep the message and hint. */
async function guarded<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof McpError) throw error;
    if (error instanceof M1ndError) {
      const invalid = error.code === ErrorCodes.PATH_ESCAPE || error.code === ErrorCodes.CALL_INVALID_ARGS;
      throw new McpError(invalid ? ErrorCode.InvalidParams : ErrorCode.InternalError, error.hint ? `${error.message} (${error.hint})` : error.message, { code: error.code });
    }
    throw new McpError(ErrorCode.InternalError, error instanceof Error ? error.message : String(error));
  }
}

function contentsOf(uri: string, mimeType: string | undefined, result: ReadResult): ResourceContent[] {
  if (Array.isArray(result)) return result.map((c) => ({ ...c, mimeType: c.mimeType ?? mimeType }));
  return [{ uri, mimeType: result.mimeType ?? mimeType ?? ('blob' in result ? 'application/octet-stream' : 'text/plain'), ...('blob' in result ? { blob: result.blob } : { text: result.text }) }];
}
