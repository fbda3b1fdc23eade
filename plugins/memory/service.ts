/**
 * The `memory` service other plugins consume (declare `requires: ['memory']`, then
 * `ctx.service<MemoryService>('memory')`): storing claims with anchored evidence, reading them
 * with computed freshness, and re-verifying them. The store is the workspace store the graph
 * service exposes; the Markdown mirror is the reviewable copy.
 */
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { StateService } from '../state/api.ts';
import { ClaimBook, type Claim, type ClaimKind, type ClaimLimits } from './claims.ts';
import { anchorEvidence, anchorLabel, checkFreshness, FileReader, pinNode, reanchor, type EvidenceInput, type Freshness } from './evidence.ts';
import { MarkdownMirror } from './mirror.ts';
import { nodeAnchorFiles, settleFiles } from './settle.ts';
import type { Scope } from './scopes.ts';

/** A claim to store, as a caller gives it. */
export interface NewClaim {
  text: string;
  kind?: ClaimKind;
  /** 0..1, or high / medium / low. */
  confidence?: number | string;
  evidence?: EvidenceInput[];
  supersedes?: string;
}

/** What memorize did. */
export interface MemorizeOutcome {
  stored: Claim[];
  duplicates: { text: string; existing: Claim; similarity: number }[];
  mirrored: string[];
  /** Claims retired by `replace` (the author's earlier claims on the same topic). */
  replaced: string[];
}

/** A claim as results show it: verbatim text, who and when, and its freshness now. */
export interface ClaimView {
  id: string;
  text: string;
  kind: ClaimKind;
  scope: Scope;
  author: string;
  confidence: number;
  freshness: Freshness['state'];
  changed?: Freshness['changed'];
  /** Cited line ranges found unchanged at other lines (the claim is still fresh). */
  moved?: Freshness['moved'];
  evidence: string[];
  verified: string;
  age_days: number;
  superseded_by?: string;
  origin?: Claim['origin'];
  /** When a person last edited it through its Markdown file. */
  edited_by_hand?: string;
  namespace?: string;
  state?: string;
}

export interface MemoryService {
  readonly claims: ClaimBook;
  readonly limits: ClaimLimits;
  /** The Markdown mirror's folder (workspace-relative). */
  readonly folder: string;
  /** Stores claims with anchored evidence; duplicates are reported, not stored. Throws on bad evidence or limits. */
  memorize(agentId: string, input: { claims: NewClaim[]; scope: Scope; topic?: string; title?: string; namespace?: string; state?: string; replace?: boolean }): Promise<MemorizeOutcome>;
  /** The freshness of claims now (one read per file). */
  freshness(claims: readonly Claim[]): Map<string, Freshness>;
  /** A claim as results show it. */
  view(claim: Claim, freshness: Freshness): ClaimView;
  /** Re-hashes the evidence of claims the caller can read; claims whose evidence is gone are returned unchanged in `failed`. */
  reverify(agentId: string, ids: readonly string[]): Promise<{ refreshed: Claim[]; failed: { id: string; missing: string[] }[] }>;
  /** Writes claims (already stored) to the Markdown mirror again; returns the paths written. */
  mirror(claims: readonly Claim[]): string[];
  /**
   * Re-ingests the files among `paths` the graph holds at other bytes than the disk (edited while no
   * server watched), so node anchors are read at the symbols' lines now; returns those paths. Call it
   * before `freshness` with the files of the claims' node anchors (`nodeAnchorFiles`).
   */
  settle(paths: Iterable<string>, signal?: AbortSignal): Promise<string[]>;
}

/** Confidence words of the reference mapped to numbers. */
export function confidenceOf(value: number | string | undefined): number {
  if (typeof value === 'number') return Math.max(0, Math.min(1, value));
  const named: Record<string, number> = { high: 0.9, medium: 0.6, low: 0.3 };
  if (typeof value === 'string') return named[value.toLowerCase()] ?? (Number.isFinite(Number(value)) ? confidenceOf(Number(value)) : 0.6);
  return 0.6;
}

/** Creates the service over the graph service. */
export function createMemoryService(graph: GraphService, state: StateService, options: { folder: string; mirror?: boolean; limits: ClaimLimits; onMirrored?: () => void }): MemoryService {
  const claims = new ClaimBook(state);
  const mirror = new MarkdownMirror(graph, options.folder, options.mirror !== false);
  // Every mirror write tells the plugin the folder exists (it starts watching for hand edits then).
  const markdown = {
    write: (list: readonly Claim[]) => {
      const written = mirror.write(list);
      if (written.length > 0) options.onMirrored?.();
      return written;
    },
  };
  const service: MemoryService = {
    claims,
    limits: options.limits,
    folder: options.folder,
    async memorize(agentId, input) {
      await claims.checkLimits(agentId, input.claims.map((c) => ({ text: c.text, evidence: c.evidence?.length ?? 0 })), options.limits);
      const files = new FileReader(graph);
      // The topic anchors claims that cite nothing, when it names a node (never a loose match).
      let topicEvidence: EvidenceInput[] = [];
      if (input.topic) {
        try {
          topicEvidence = [{ node: pinNode(graph, input.topic).id }];
        } catch {
          topicEvidence = [];
        }
      }
      const anchorAll = (reader: FileReader) => input.claims.map((c) => (c.evidence?.length ? c.evidence : topicEvidence).map((e) => anchorEvidence(graph, reader, e)));
      let anchored = anchorAll(files);
      // A node's lines come from the graph: anchored again once the files it held at old bytes are re-ingested.
      if ((await settleFiles(graph, nodeAnchorFiles(anchored.map((evidence) => ({ evidence }))))).length > 0) anchored = anchorAll(new FileReader(graph));
      const now = Date.now();
      const stored: Claim[] = [];
      const touched: Claim[] = [];
      const duplicates: MemorizeOutcome['duplicates'] = [];
      for (const [i, c] of input.claims.entries()) {
        const evidence = anchored[i];
        const found = await claims.duplicateOf(agentId, input.scope, c.text);
        // A correction of the very claim it supersedes (a number changed) is no duplicate of it.
        const dup = found && found.claim.id !== c.supersedes ? found : null;
        const dupInBatch = stored.find((s) => s.text === c.text);
        if (dup || dupInBatch) {
          duplicates.push({ text: c.text, existing: dup?.claim ?? dupInBatch!, similarity: dup?.similarity ?? 1 });
          continue;
        }
        const claim: Claim = {
          id: claims.newId(),
          text: c.text,
          kind: c.kind ?? 'fact',
          scope: input.scope,
          author: agentId,
          ...(input.topic ? { topic: input.topic } : {}),
          ...(input.title ? { title: input.title } : {}),
          ...(input.namespace ? { namespace: input.namespace } : {}),
          ...(input.state ? { state: input.state } : {}),
          confidence: confidenceOf(c.confidence),
          evidence: dedupeAnchors(evidence),
          created_at: now,
          verified_at: now,
        };
        if (c.supersedes) {
          const old = await claims.get(agentId, c.supersedes);
          if (old.superseded_by) {
            throw new M1ndError(ErrorCodes.STATE_STALE, `claim "${old.id}" is already superseded by "${old.superseded_by}"`, { hint: `supersede "${old.superseded_by}" instead` });
          }
          claim.supersedes = old.id;
          old.superseded_by = claim.id;
          touched.push(old);
        }
        stored.push(claim);
      }
      // `replace`: this author's earlier claims on the same topic, in the same scope, are retired by the first new one.
      const replaced: string[] = [];
      if (input.replace && input.topic && stored.length > 0) {
        const fresh = new Set(stored.map((c) => c.id));
        for (const old of await claims.visible(agentId, [input.scope])) {
          if (old.author !== agentId || old.topic !== input.topic || old.superseded_by || fresh.has(old.id) || touched.some((t) => t.id === old.id)) continue;
          touched.push({ ...old, superseded_by: stored[0].id });
          replaced.push(old.id);
        }
      }
      await claims.save([...stored, ...touched]);
      return { stored, duplicates, mirrored: markdown.write([...stored, ...touched]), replaced };
    },
    freshness(list) {
      const files = new FileReader(graph);
      return new Map(list.map((c) => [c.id, checkFreshness(graph, files, c.evidence)]));
    },
    view(c, f) {
      return {
        id: c.id,
        text: c.text,
        kind: c.kind,
        scope: c.scope,
        author: c.author,
        confidence: c.confidence,
        freshness: f.state,
        ...(f.changed.length ? { changed: f.changed } : {}),
        ...(f.moved?.length ? { moved: f.moved } : {}),
        evidence: c.evidence.map(anchorLabel),
        verified: new Date(c.verified_at).toISOString(),
        age_days: Math.floor((Date.now() - c.created_at) / 86_400_000),
        ...(c.superseded_by ? { superseded_by: c.superseded_by } : {}),
        ...(c.origin ? { origin: c.origin } : {}),
        ...(c.edited_by_hand_at ? { edited_by_hand: new Date(c.edited_by_hand_at).toISOString() } : {}),
        ...(c.namespace ? { namespace: c.namespace } : {}),
        ...(c.state ? { state: c.state } : {}),
      };
    },
    async reverify(agentId, ids) {
      const list = [];
      for (const id of ids) list.push(await claims.get(agentId, id));
      await settleFiles(graph, nodeAnchorFiles(list));
      const files = new FileReader(graph);
      const refreshed: Claim[] = [];
      const failed: { id: string; missing: string[] }[] = [];
      for (const claim of list) {
        const id = claim.id;
        const anchors = claim.evidence.map((a) => ({ a, now: reanchor(graph, files, a) }));
        const missing = anchors.filter((x) => !x.now).map((x) => anchorLabel(x.a));
        if (missing.length) {
          failed.push({ id, missing });
          continue;
        }
        refreshed.push({ ...claim, evidence: anchors.map((x) => x.now!), verified_at: Date.now() });
      }
      await claims.save(refreshed);
      markdown.write(refreshed);
      return { refreshed, failed };
    },
    mirror: (list) => markdown.write(list),
    settle: (paths, signal) => settleFiles(graph, paths, signal),
  };
  return service;
}

function dedupeAnchors<T extends { kind: string; path: string; node?: string; lines?: [number, number] }>(list: T[]): T[] {
  const seen = new Set<string>();
  return list.filter((a) => {
    const key = `${a.kind}|${a.path}|${a.node ?? ''}|${a.lines?.join('-') ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
