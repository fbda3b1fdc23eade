/**
 * Resources and prompts plugins register, beside their verbs. A resource is a fixed URI or an
 * RFC 6570 level-1 template (`m1nd://trails/{trail_id}`, `{+path}` for a value that may hold `/`);
 * a prompt is a named message template with arguments. Both may complete their variables
 * (MCP `completion/complete`). The core serves them (core/mcp-resources.ts); plugins never see MCP.
 */
import { ErrorCodes, M1ndError } from './errors.ts';

/** One readable content of a resource: text, or base64 bytes. */
export interface ResourceContent {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

/** A concrete resource a `list` offers. */
export interface ResourceListing {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** What a resource or prompt callback knows of the request. */
export interface ResourceRequestContext {
  /** The MCP session asking (undefined over stdio). */
  connectionId?: string;
  signal?: AbortSignal;
}

/** Values of a variable that start with what the client typed so far. */
export type Completer = (prefix: string, ctx: ResourceRequestContext) => string[] | Promise<string[]>;

export interface ResourceDefinition {
  /** A fixed URI, or a template whose `{var}` / `{+var}` parts are filled by the client. */
  uri: string;
  /** Short identifier (`trail`), and an optional human title. */
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** The concrete resources to list now (a fixed URI is listed by itself when this is absent). */
  list?(ctx: ResourceRequestContext): ResourceListing[] | Promise<ResourceListing[]>;
  /** Reads one resource; `vars` are the template's values. Return undefined when it does not exist. */
  read(vars: Record<string, string>, ctx: ResourceRequestContext): ReadResult | undefined | Promise<ReadResult | undefined>;
  /** Starts watching one resource for subscribers; returns the stop function. `changed` sends resources/updated. */
  watch?(vars: Record<string, string>, changed: () => void): () => void;
  /** Completion of template variables, by variable name. */
  complete?: Record<string, Completer>;
}

/** A read: one text or blob (the URI is filled in), or several contents. */
export type ReadResult = { text: string; mimeType?: string } | { blob: string; mimeType?: string } | ResourceContent[];

export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
  complete?: Completer;
}

/** One prompt message, as MCP sends it. */
export interface PromptMessage {
  role: 'user' | 'assistant';
  content:
    | { type: 'text'; text: string }
    | { type: 'image'; data: string; mimeType: string }
    | { type: 'resource'; resource: ResourceContent };
}

export interface PromptDefinition {
  /** snake_case, unique across plugins. */
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  get(args: Record<string, string>, ctx: ResourceRequestContext): PromptMessage[] | Promise<PromptMessage[]>;
}

/** A registered resource, stamped with its plugin and its compiled template. */
export interface ResourceRecord extends ResourceDefinition {
  plugin: string;
  template: UriTemplate;
}

export interface PromptRecord extends PromptDefinition {
  plugin: string;
}

const VARIABLE = /\{(\+?)([A-Za-z_][A-Za-z0-9_]*)\}/g;
const PROMPT_NAME = /^[a-z][a-z0-9_]*$/;

/** A level-1 URI template: `{var}` matches one path segment, `{+var}` anything (reserved expansion). */
export class UriTemplate {
  readonly variables: string[] = [];
  private readonly pattern: RegExp;

  constructor(readonly text: string) {
    let source = '^';
    let last = 0;
    for (const m of text.matchAll(VARIABLE)) {
      source += escapeRegExp(text.slice(last, m.index));
      source += m[1] === '+' ? '(.+)' : '([^/?#]+)';
      this.variables.push(m[2]);
      last = m.index! + m[0].length;
    }
    this.pattern = new RegExp(`${source}${escapeRegExp(text.slice(last))}$`);
  }

  get isTemplate(): boolean {
    return this.variables.length > 0;
  }

  /** The variables of a URI this template matches, decoded; undefined when it does not match. */
  match(uri: string): Record<string, string> | undefined {
    const m = this.pattern.exec(uri);
    if (!m) return undefined;
    const vars: Record<string, string> = {};
    try {
      this.variables.forEach((name, i) => (vars[name] = decodeURIComponent(m[i + 1])));
    } catch {
      return undefined;
    }
    return vars;
  }

  /** The URI for these values (`{var}` percent-encoded, `{+var}` keeping `/`). */
  expand(vars: Record<string, string>): string {
    return this.text.replace(VARIABLE, (_, plus: string, name: string) => {
      const value = vars[name] ?? '';
      return plus ? encodeURI(value) : encodeURIComponent(value);
    });
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The resources and prompts of one generation. */
export class ResourceCatalog {
  private readonly resources: ResourceRecord[] = [];
  private readonly prompts = new Map<string, PromptRecord>();

  /** Why this resource cannot be registered (bad URI, taken), or undefined. */
  resourceProblem(plugin: string, def: ResourceDefinition): string | undefined {
    if (typeof def.uri !== 'string' || !/^[a-z][a-z0-9+.-]*:/i.test(def.uri)) return `resource "${def.name}" of plugin "${plugin}" needs a URI with a scheme (m1nd://…), got ${JSON.stringify(def.uri)}`;
    if (typeof def.read !== 'function') return `resource ${def.uri} of plugin "${plugin}" has no read()`;
    const clash = this.resources.find((r) => r.uri === def.uri);
    if (clash) return `resource ${def.uri} is registered by both "${clash.plugin}" and "${plugin}"`;
    return undefined;
  }

  /** Why this prompt cannot be registered (bad or taken name), or undefined. */
  promptProblem(plugin: string, def: PromptDefinition): string | undefined {
    if (typeof def.name !== 'string' || !PROMPT_NAME.test(def.name)) return `prompt name ${JSON.stringify(def.name)} of plugin "${plugin}" must be snake_case`;
    if (typeof def.get !== 'function') return `prompt "${def.name}" of plugin "${plugin}" has no get()`;
    const clash = this.prompts.get(def.name);
    if (clash) return `prompt "${def.name}" is registered by both "${clash.plugin}" and "${plugin}"`;
    return undefined;
  }

  /** Registers a resource (check `resourceProblem` first). */
  addResource(plugin: string, def: ResourceDefinition): void {
    const problem = this.resourceProblem(plugin, def);
    if (problem) throw new M1ndError(ErrorCodes.PLUGIN_RESOURCE, problem);
    this.resources.push({ ...def, plugin, template: new UriTemplate(def.uri) });
  }

  /** Registers a prompt (check `promptProblem` first). */
  addPrompt(plugin: string, def: PromptDefinition): void {
    const problem = this.promptProblem(plugin, def);
    if (problem) throw new M1ndError(ErrorCodes.PLUGIN_RESOURCE, problem);
    this.prompts.set(def.name, { ...def, plugin });
  }

  allResources(): ResourceRecord[] {
    return [...this.resources];
  }

  allPrompts(): PromptRecord[] {
    return [...this.prompts.values()];
  }

  prompt(name: string): PromptRecord | undefined {
    return this.prompts.get(name);
  }

  /** The resource serving a URI (fixed URIs first, then templates in registration order). */
  resolve(uri: string): { record: ResourceRecord; vars: Record<string, string> } | undefined {
    for (const fixed of [false, true]) {
      for (const record of this.resources) {
        if (record.template.isTemplate !== fixed) continue;
        const vars = record.template.match(uri);
        if (vars) return { record, vars };
      }
    }
    return undefined;
  }

  /** The resource registered with exactly this URI template. */
  byTemplate(uri: string): ResourceRecord | undefined {
    return this.resources.find((r) => r.uri === uri);
  }

  /** Stable signature of what is listed, to tell clients when it changed on reload. */
  signature(): { resources: string; prompts: string } {
    return {
      resources: JSON.stringify(this.resources.map((r) => [r.uri, r.name, r.title, r.description, r.mimeType])),
      prompts: JSON.stringify(this.allPrompts().map((p) => [p.name, p.title, p.description, p.arguments?.map((a) => [a.name, a.required, a.description])])),
    };
  }
}
