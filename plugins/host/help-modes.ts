/** What each help mode answers, computed from the catalog (so help always knows every registered verb). */
import type { TSchema } from '@sinclair/typebox';
import { describeSchema, minimalArguments, mustPass, type CatalogView, type VerbRecord } from '../../core/index.ts';


/** Parameters of a verb as help shows them. */
export function parametersOf(verb: VerbRecord) {
  return Object.entries(verb.input.properties as Record<string, TSchema>).map(([name, s]) => ({
    name,
    type: describeSchema(s),
    required: mustPass(verb.input, name),
    ...(s.default !== undefined ? { default: s.default } : {}),
    ...(s.description ? { description: s.description } : {}),
  }));
}

/** Every verb grouped by family, with tiers and whether the served tier advertises it. */
export function overview(catalog: CatalogView) {
  const surface = catalog.surface();
  const families: Record<string, { name: string; advertised: boolean; tiers: string[]; effect: string }[]> = {};
  for (const entry of surface.help.values()) {
    (families[entry.family] ??= []).push({ name: entry.name, advertised: entry.advertisedNow, tiers: entry.advertisedIn, effect: entry.effect });
  }
  const tiers = Object.fromEntries([...catalog.tierTable().tiers].map(([t, set]) => [t, catalog.surfaceFor(t).counts.advertised || set.size]));
  return {
    tier: surface.tier,
    registered: surface.counts.registry,
    advertised: surface.counts.advertised,
    tiers,
    families,
    how_to_call_hidden: 'Every registered verb is callable in every tier; unadvertised ones just are not in tools/list. Use help(tool_name) for parameters.',
    back_compat: catalog.records().filter((r) => !r.advertised).map((r) => ({ name: r.name, use_instead: r.replacedBy ?? null })),
  };
}

/** One verb's documentation, or did-you-mean suggestions over every registered verb. */
export function describeVerb(catalog: CatalogView, name: string, max: number) {
  const verb = catalog.get(name);
  if (!verb) {
    const suggestions = catalog.suggest(name, max);
    return { found: false, tool_name: name, message: `no verb "${name}" is registered`, suggestions };
  }
  const entry = catalog.surface().help.get(name)!;
  return {
    found: true,
    tool_name: name,
    family: verb.family,
    plugin: verb.plugin,
    description: verb.description,
    effect: entry.effect,
    advertised_in: entry.advertisedIn,
    advertised_now: entry.advertisedNow,
    callable: true,
    proof_gated: verb.proof !== undefined,
    parameters: parametersOf(verb),
    minimal_call: { tool: name, arguments: minimalArguments(verb.input) },
    ...(verb.stages ? { stages: verb.stages } : {}),
    ...(typeof verb.next === 'string' ? { usually_next: verb.next } : {}),
    ...(verb.replacedBy ? { back_compat: true, use_instead: verb.replacedBy } : {}),
    ...(verb.guide ? { guide: verb.guide } : {}),
  };
}

const WORD = /[a-z0-9]+/g;
const STOP = new Set(['the', 'and', 'for', 'with', 'this', 'that', 'from', 'into', 'what', 'how', 'are', 'was', 'its', 'not', 'all', 'any', 'one', 'you', 'your']);
function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).filter((w) => w.length > 2 && !STOP.has(w));
}

/** Verbs that fit an intent and/or stage, ranked; recently used ones last, `path` prefilled. */
export function route(catalog: CatalogView, q: { intent?: string; stage?: string; path?: string; recent: string[]; max: number }) {
  const want = new Set(words(q.intent ?? ''));
  const surface = catalog.surface();
  const scored = catalog.records().map((verb) => {
    const vocab = new Set([...verb.name.split('_'), ...words(verb.description), ...(verb.stages ?? [])]);
    let score = 0;
    const why: string[] = [];
    const hits = [...want].filter((w) => vocab.has(w) || [...vocab].some((v) => v.startsWith(w) || w.startsWith(v)));
    if (hits.length) {
      score += hits.length;
      why.push(`matches ${hits.join(', ')}`);
    }
    if (q.stage && verb.stages?.includes(q.stage as never)) {
      score += 2;
      why.push(`serves stage ${q.stage}`);
    }
    if (score > 0 && surface.advertised.has(verb.name)) score += 0.25;
    if (q.recent.includes(verb.name)) score -= 1.5;
    return { verb, score, why };
  });
  const ranked = scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score || a.verb.name.localeCompare(b.verb.name));
  return {
    intent: q.intent ?? null,
    stage: q.stage ?? null,
    suggestions: ranked.slice(0, q.max).map(({ verb, why }) => ({
      verb: verb.name,
      why: why.join('; '),
      advertised: surface.advertised.has(verb.name),
      arguments: prefill(verb, q.path),
    })),
  };
}

function prefill(verb: VerbRecord, path?: string): Record<string, unknown> {
  const args = minimalArguments(verb.input);
  if (path) {
    for (const key of ['file_path', 'path', 'scope']) {
      if (key in (verb.input.properties ?? {})) {
        args[key] = path;
        break;
      }
    }
  }
  return args;
}

const RECOVERY: { code: RegExp; steps: string[] }[] = [
  { code: /GATE_READ_ONLY/, steps: ['The server runs read-only: use read or session verbs only.', 'To write, restart the server without --read-only / M1ND_READ_ONLY.'] },
  { code: /GATE_PROOF/, steps: ['The proof gate refused a write: prove each listed target first with the verb the error names, using the same agent_id.', 'Then retry the write unchanged.'] },
  { code: /CALL_INVALID_ARGS/, steps: ['Fix the argument at the JSON path the error names; the minimal valid call below shows the required parameters.'] },
  { code: /CALL_UNKNOWN_VERB/, steps: ['The verb name is wrong; use one of the suggestions (hidden verbs are callable too).'] },
  { code: /CALL_TIMEOUT/, steps: ['Narrow the call (scope, top_k, depth) or raise M1ND_HANDLER_TIMEOUT_MS.'] },
  { code: /GRAPH_EMPTY|needs_ingest/i, steps: ['No graph is loaded: call ingest with the workspace path, then retry.'] },
  { code: /PATH_ESCAPE|PATH_NOT_FOUND/, steps: ['Use a path relative to the workspace root, without `..` or links that leave it.'] },
  { code: /STATE_STALE/, steps: ['The state you refer to predates a graph change: call the refresh verb the error names, then retry with the fresh ids.'] },
  { code: /STATE_NOT_OWNER/, steps: ['That state belongs to another agent: pass your own agent_id, or create your own.'] },
  { code: /AUTH_AGENT_MISMATCH/, steps: ['This MCP session is bound to the agent_id it used first: call again with that id, or open a new session for the other agent.'] },
  { code: /AUTH_AGENT_DENIED|AUTH_ROLE/, steps: ['Your credential does not allow this agent_id or verb: use the ids and verbs your token allows, or ask the operator for a token that lists them (M1ND_HTTP_TOKENS).'] },
];

/** Next steps for an error text: by error code, by verbs it names, and suggestions for misspelt verbs. */
export function recovery(catalog: CatalogView, errorText: string, max: number) {
  const code = errorText.match(/M1ND_ERR_[A-Z_]+/)?.[0] ?? null;
  const steps = RECOVERY.filter((r) => r.code.test(errorText)).flatMap((r) => r.steps);
  const named = [...new Set(errorText.match(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[a-z]{3,}\b/g) ?? [])].filter((w) => catalog.get(w));
  const quoted = [...errorText.matchAll(/verb "([^"]+)"/g)].map((m) => m[1]);
  const suggestions = quoted.flatMap((q) => catalog.suggest(q, max)).slice(0, max);
  if (steps.length === 0) steps.push('Call health, then doctor, for the server state; recovery_playbook gives ordered steps.');
  return {
    error_code: code,
    steps,
    verbs_named: named.slice(0, max).map((n) => ({ verb: n, minimal_call: minimalArguments(catalog.get(n)!.input) })),
    suggestions,
  };
}

/** Named verb sequences contributed by plugins, filtered by intent words or stage. */
export function workflows(catalog: CatalogView, intent?: string, stage?: string) {
  const want = words(intent ?? '');
  const list = catalog.workflows().filter((w) => {
    if (!want.length && !stage) return true;
    const text = `${w.name} ${w.when}`.toLowerCase();
    return want.some((x) => text.includes(x)) || (stage ? text.includes(stage) : false);
  });
  const surface = catalog.surface();
  return {
    workflows: list.map((w) => ({ ...w, steps: w.steps.map((s) => ({ ...s, registered: catalog.get(s.verb) !== undefined, advertised: surface.advertised.has(s.verb) })) })),
  };
}
