/**
 * How a mission moves: events classed by evidence (a read, a test run or command output is direct;
 * what a graph verb said is graph-only), claims verified only by direct evidence, and one next
 * move derived from the mission's state.
 */
import { existsSync } from 'node:fs';
import type { GraphService } from '../../graph/api.ts';
import { budgetReport, exhausted, type Mission, type MissionClaim, type MissionEvent, type Mode, type Risk } from './book.ts';

/** Actions that observe the workspace itself. */
const DIRECT_ACTIONS = new Set(['file_read', 'read', 'view', 'batch_view', 'search', 'test_run', 'test', 'command', 'cmd', 'run', 'build', 'diff']);

/** Starter moves per mode (verbs this server serves), in order. */
export const STARTER_MOVES: Record<Mode, { verb: string; why: string }[]> = {
  bug_hunt: [
    { verb: 'seek', why: 'find the code matching the symptom' },
    { verb: 'view', why: 'read the top suspect directly' },
    { verb: 'impact', why: 'who depends on the suspect' },
    { verb: 'mission_verify', why: 'check the cause against what you read or ran' },
  ],
  review: [
    { verb: 'orient', why: 'nodes and remembered claims for the change' },
    { verb: 'view', why: 'read the changed code directly' },
    { verb: 'impact', why: 'what the change can break' },
    { verb: 'mission_verify', why: 'back each finding with a direct read' },
  ],
  refactor: [
    { verb: 'impact', why: 'the blast radius of the target' },
    { verb: 'lock_create', why: 'baseline the region you will change' },
    { verb: 'view', why: 'read every caller you will touch' },
    { verb: 'mission_verify', why: 'confirm behaviour is kept (tests run)' },
  ],
  docs_drift: [
    { verb: 'soul_check', why: 'which doctrine claims are false now' },
    { verb: 'search', why: 'find the documented names in the code' },
    { verb: 'view', why: 'read the code a doc describes' },
    { verb: 'mission_verify', why: 'each drift backed by a direct read' },
  ],
  architecture: [
    { verb: 'orient', why: 'the central nodes and what is remembered' },
    { verb: 'focus', why: 'the structure around the centre' },
    { verb: 'why', why: 'how two parts connect' },
    { verb: 'mission_verify', why: 'back each structural claim by reading the code' },
  ],
  release: [
    { verb: 'soul_check', why: 'scripts and versions the docs name exist' },
    { verb: 'search', why: 'leftover TODOs and debug code' },
    { verb: 'view', why: 'read the manifest and changelog' },
    { verb: 'mission_verify', why: 'tests and build ran clean' },
  ],
};

/** What a mission does not claim, per mode (stated up front, repeated at close). */
export const NON_CLAIMS: Record<Mode, string[]> = {
  bug_hunt: ['a cause backed only by the graph is a hypothesis, not a finding'],
  review: ['no judgement of style or taste', 'a finding backed only by the graph is a hypothesis'],
  refactor: ['behaviour preservation is claimed only for what tests exercised'],
  docs_drift: ['claims of intent or taste in the docs are not verified'],
  architecture: ['the graph shows static structure, not runtime behaviour'],
  release: ['no claim about environments the mission did not run in'],
};

const GUARDRAILS: Record<Risk, string[]> = {
  low: ['verify before you report'],
  medium: ['verify before you report', 'no edit without reading the target first'],
  high: ['verify before you report', 'no edit without reading the target first', 'run impact on anything you change', 'run the tests before closing'],
};

/** Normalises a reported event (string or object) into a classed event. */
export function classifyEvent(graph: GraphService, seq: number, event: unknown, outcome?: string, confidence?: number): MissionEvent {
  const e = (typeof event === 'string' ? { action: event } : (event ?? {})) as Record<string, unknown>;
  const action = String(e.action ?? e.kind ?? e.verb ?? e.type ?? 'event');
  const refs = [
    ...(typeof e.path === 'string' ? [e.path] : []),
    ...(Array.isArray(e.paths) ? e.paths : []),
    ...(Array.isArray(e.refs) ? e.refs : []),
    ...(typeof e.node === 'string' ? [e.node] : []),
  ].map((r) => normaliseRef(graph, String(r)));
  const hasCommand = typeof e.cmd === 'string' || typeof e.exit_status === 'number';
  const declared = e.evidence_class === 'direct' || e.evidence_class === 'graph_only' ? e.evidence_class : undefined;
  const evidence_class = declared ?? (hasCommand || DIRECT_ACTIONS.has(action) ? 'direct' : 'graph_only');
  return {
    seq,
    at: Date.now(),
    action,
    evidence_class,
    refs: [...new Set(refs)],
    ...(outcome ?? e.outcome ? { outcome: String(outcome ?? e.outcome) } : {}),
    ...(confidence !== undefined ? { confidence } : {}),
    ...(typeof e.cmd === 'string' ? { cmd: e.cmd } : {}),
    ...(typeof e.exit_status === 'number' ? { exit_status: e.exit_status } : {}),
  };
}

/** A ref as a workspace path when it names a node or a file (node ids and `path:lines` reduce to the path). */
export function normaliseRef(graph: GraphService, ref: string): string {
  const node = graph.engine.getNode(ref);
  if (node) return node.path;
  const path = ref.replace(/:\d+(-\d+)?$/, '');
  try {
    return graph.engine.resolvePath(path).relative || ref;
  } catch {
    return ref;
  }
}

/** True when a normalised ref names a node, or a file or directory of the workspace. */
function inWorkspace(graph: GraphService, ref: string): boolean {
  if (graph.engine.getNode(ref)) return true;
  try {
    return existsSync(graph.engine.resolvePath(ref).absolute);
  } catch {
    return false;
  }
}

/** A direct event that observed what it cites: a read, a test run (failing or not), a command that succeeded. */
const observed = (e: MissionEvent) => e.evidence_class === 'direct' && !(typeof e.exit_status === 'number' && e.exit_status !== 0 && e.action !== 'test_run');

/**
 * Checks a claim against the event log: verified only when a direct event observed one of its refs
 * and that ref is in the workspace (a read of a file that does not exist observed nothing).
 */
export function verifyClaim(graph: GraphService, m: Mission, text: string, refs: readonly string[], confidence?: number): MissionClaim {
  const resolved = refs.flatMap((r) => {
    const ev = /^e(\d+)$/.exec(r);
    if (ev) return m.events.find((e) => e.seq === Number(ev[1]))?.refs ?? [];
    return [normaliseRef(graph, r)];
  });
  const direct: string[] = [];
  const graphOnly: string[] = [];
  const failed: string[] = [];
  const missing: string[] = [];
  const unobserved: string[] = [];
  for (const r of new Set(resolved)) {
    const seen = m.events.filter((e) => e.refs.includes(r));
    if (!inWorkspace(graph, r)) missing.push(r);
    else if (seen.some(observed)) direct.push(r);
    else if (seen.some((e) => e.evidence_class === 'direct')) failed.push(r);
    else if (seen.length) graphOnly.push(r);
    else unobserved.push(r);
  }
  return {
    text,
    status: direct.length ? 'verified' : 'unverified',
    direct_refs: direct,
    graph_refs: graphOnly,
    unobserved_refs: unobserved,
    failed_refs: failed,
    missing_refs: missing,
    ...(confidence !== undefined ? { confidence } : {}),
    at: Date.now(),
  };
}

/** Why a claim is (not) verified, naming what to do next. */
export function verifyReason(c: MissionClaim): string {
  if (c.status === 'verified') return `observed directly: ${c.direct_refs.join(', ')}`;
  const parts = [
    ...(c.graph_refs.length ? [`only graph answers cite ${c.graph_refs.join(', ')}: read it (or run a test) and log that event first`] : []),
    ...(c.failed_refs?.length ? [`only failed commands cite ${c.failed_refs.join(', ')}: read it, or log a run that succeeds`] : []),
    ...(c.missing_refs?.length ? [`${c.missing_refs.join(', ')} is no file, directory or symbol of the workspace: cite what you read`] : []),
    ...(c.unobserved_refs.length ? [`no event of this mission observed ${c.unobserved_refs.join(', ')}`] : []),
  ];
  return parts.length ? parts.join('; ') : 'no evidence_refs given: cite the paths or event ids (e3) that back the claim';
}

/** Exactly one next move from the mission's state, with the guardrails of its risk. */
export function nextMove(m: Mission, agentId: string = m.agent_id): { verb: string; arguments: Record<string, unknown>; why: string; guardrails: string[] } {
  const guardrails = GUARDRAILS[m.risk];
  const args = { agent_id: agentId, mission_id: m.id };
  const out = exhausted(m);
  if (out) return { verb: 'mission_close', arguments: args, why: `the ${out} budget is spent: close with what is verified`, guardrails };
  for (const hypothesis of m.claims.filter((c) => c.status === 'unverified')) {
    const target = hypothesis.graph_refs[0] ?? hypothesis.failed_refs?.[0] ?? hypothesis.unobserved_refs[0];
    if (target) return { verb: 'view', arguments: { agent_id: agentId, file_path: target }, why: `"${hypothesis.text.slice(0, 80)}" is unverified: read ${target} directly, log it (mission_event), then mission_verify again`, guardrails };
  }
  const last = m.events[m.events.length - 1];
  const tried = new Set(m.events.map((e) => e.action));
  const starters = STARTER_MOVES[m.mode].filter((s) => !tried.has(s.verb));
  if (last && /fail|dead/.test(last.outcome ?? '') && starters.length === 0) {
    return { verb: 'mission_handoff', arguments: args, why: 'the last move failed and every starter move was tried: hand off with the dead ends', guardrails };
  }
  const verified = m.claims.filter((c) => c.status === 'verified').length;
  const b = budgetReport(m);
  if (verified > 0 && b.calls.left <= Math.ceil(m.budget.calls * 0.3)) return { verb: 'mission_close', arguments: args, why: `${verified} claim(s) verified and the budget is 70% spent`, guardrails };
  const starter = starters[0];
  if (starter) return { verb: starter.verb, arguments: { agent_id: agentId }, why: starter.why, guardrails };
  return { verb: 'mission_verify', arguments: args, why: 'state what you found and check it against the events', guardrails };
}
