/** help: documentation, routing advice and did-you-mean over every registered verb, hidden ones included. */
import { Type } from '@sinclair/typebox';
import { AgentId, defineVerb, STAGES, StringEnum, type CatalogView, type VerbRecord } from '../../../core/index.ts';
import { describeVerb, overview, recovery, route, workflows } from '../help-modes.ts';
import { renderHelp } from '../help-render.ts';

const Input = Type.Object({
  agent_id: AgentId,
  tool_name: Type.Optional(Type.String({ maxLength: 128, description: 'Verb to document' })),
  mode: Type.Optional(Type.Union(['overview', 'tool', 'route', 'recovery', 'workflow'].map((m) => Type.Literal(m)), { description: 'Default: inferred from the other fields' })),
  intent: Type.Optional(Type.String({ description: 'What you want to do, in words (route mode)' })),
  stage: Type.Optional(Type.Union(STAGES.map((s) => Type.Literal(s)))),
  path: Type.Optional(Type.String({ description: 'Workspace path you are working on (prefills suggestions)' })),
  error_text: Type.Optional(Type.String({ description: 'An error to recover from (recovery mode)' })),
  recent_tools: Type.Optional(Type.Array(Type.String(), { description: 'Verbs you called lately (route mode ranks others first)' })),
  max_suggestions: Type.Integer({ minimum: 1, maximum: 20, default: 3 }),
  render: Type.Union([Type.Literal('full'), Type.Literal('compact'), Type.Literal('none')], { default: 'full', description: 'full: markdown + data; compact: short markdown; none: data only' }),
});

type Mode = 'overview' | 'tool' | 'route' | 'recovery' | 'workflow';

function inferMode(a: { mode?: string; tool_name?: string; error_text?: string; intent?: string; stage?: string }): Mode {
  if (a.mode) return a.mode as Mode;
  if (a.tool_name) return 'tool';
  if (a.error_text) return 'recovery';
  if (a.intent || a.stage) return 'route';
  return 'overview';
}

/** The help verb, bound to the catalog it documents. */
export function helpVerb(catalog: CatalogView) {
  return defineVerb({
    name: 'help',
    description: 'Docs for any verb (hidden ones too), the verb list by family and tier, routing advice, error recovery.',
    input: Input,
    output: Type.Object({ mode: StringEnum(['overview', 'tool', 'route', 'recovery', 'workflow']) }),
    tiers: ['essential'],
    effect: 'read',
    stages: ['orient', 'diagnose'],
    guide:
      'Modes: `overview` (every verb by family, with the tiers that advertise it), `tool` (one verb: parameters, effect, tiers, a minimal call), `route` (verbs for an `intent` and/or `stage`, prefilled with `path`), `recovery` (next steps for an `error_text`), `workflow` (named verb sequences). A mistyped `tool_name` gets did-you-mean suggestions over all registered verbs.',
    handler: (args) => {
      const mode = inferMode(args);
      const max = args.max_suggestions;
      let data: Record<string, unknown>;
      switch (mode) {
        case 'tool':
          data = args.tool_name ? describeVerb(catalog, args.tool_name, max) : { found: false, message: 'tool mode needs tool_name', suggestions: [] };
          break;
        case 'route':
          data = route(catalog, { intent: args.intent, stage: args.stage, path: args.path, recent: args.recent_tools ?? [], max });
          break;
        case 'recovery':
          data = recovery(catalog, args.error_text ?? '', max);
          break;
        case 'workflow':
          data = workflows(catalog, args.intent, args.stage);
          break;
        default:
          data = overview(catalog);
      }
      const result: Record<string, unknown> = { mode, ...data };
      if (args.render !== 'none') result.rendered = renderHelp(mode, data, args.render === 'compact');
      return result;
    },
  });
}

export type { VerbRecord };
