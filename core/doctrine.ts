/**
 * The `instructions` text of `initialize`: a short core doctrine plus what plugins contribute
 * through the `doctrine` hook, written for the tier actually advertised.
 */
import type { Generation } from './generation.ts';

/** Builds the instructions for a generation's served surface. */
export function buildInstructions(gen: Generation): string {
  const surface = gen.surface();
  const choice = gen.tierChoice();
  const hidden = surface.counts.unadvertised;
  const core = [
    `m1nd: shared code-graph memory and context for coding agents. Tier "${surface.tier}" advertises ${surface.counts.advertised} of ${surface.counts.registry} registered verbs${surface.readOnly ? '; read-only mode: writes are refused' : ''}.`,
    hidden > 0
      ? `Every registered verb is callable even when not listed: call help({"agent_id":"<you>","mode":"overview"}) to see all ${surface.counts.registry}, and help({"agent_id":"<you>","tool_name":"<verb>"}) for one verb's parameters.`
      : `help({"agent_id":"<you>","tool_name":"<verb>"}) documents any verb.`,
    'Pass the same agent_id on every call: it keys your session, proofs and state. Errors carry a `hint` naming the next valid call. Object results carry an additive `_m1nd` block (tier, timing, token counts, truncation, next_suggested_verb).',
  ];
  if (choice.unknown) core.push(`Note: the requested tier "${choice.requested}" is unknown; the essential tier is served.`);
  const sections = gen.hooks.doctrine.call([], { tier: surface.tier, advertised: surface.advertised, readOnly: surface.readOnly });
  return [...core, ...sections].join('\n\n');
}
