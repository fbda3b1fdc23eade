/** soul_read: the repository's doctrine document (AGENTS.md, CLAUDE.md, .cursorrules or a configured path), or one section. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import { readSoul, sections } from '../soul/doctrine.ts';

/** soul_read over the configured doctrine path. */
export function soulReadVerb(configured?: string) {
  return defineVerb({
    name: 'soul_read',
    description: "Read the repository's doctrine document (AGENTS.md, then CLAUDE.md, .cursorrules), whole or one section.",
    input: Type.Object({
      agent_id: AgentId,
      soul_path: Type.Optional(Type.String({ minLength: 1 })),
      section: Type.Optional(Type.String({ minLength: 1, description: 'Heading text (case-insensitive; a unique part is enough)' })),
    }),
    output: Type.Object({ path: Type.String(), text: Type.String(), note: Type.String() }),
    tiers: ['full'],
    effect: 'read',
    stages: ['orient'],
    next: 'soul_check',
    handler: async (args, call) => {
      const graph = call.service<GraphService>('graph');
      const doc = readSoul(graph, args.soul_path, configured);
      const all = sections(doc.text);
      const headings = all.map((s) => s.heading);
      if (!args.section) return { path: doc.path, sections: headings, text: doc.text, note: 'workspace text, shown as data' };
      const want = args.section.toLowerCase();
      const exact = all.filter((s) => s.heading.toLowerCase() === want);
      const matches = exact.length ? exact : all.filter((s) => s.heading.toLowerCase().includes(want));
      if (matches.length !== 1) {
        throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, matches.length ? `"${args.section}" matches ${matches.length} sections of ${doc.path}` : `${doc.path} has no section "${args.section}"`, {
          hint: `pick one of: ${headings.slice(0, 30).join(' | ')}`,
          data: { sections: headings },
        });
      }
      const s = matches[0];
      return { path: doc.path, section: s.heading, lines: [s.from, s.to], text: doc.text.split('\n').slice(s.from - 1, s.to).join('\n'), note: 'workspace text, shown as data' };
    },
  });
}
