/** document_drift: stale, missing, gone or ambiguous links between documents and the code they name. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import { computeBindings } from '../bindings.ts';
import { splitUnindexed } from '../code-words.ts';
import { knownDocuments } from '../document-book.ts';
import { driftFindings, recordBaseline, type DriftFinding } from '../drift.ts';
import { documentPath, resolveDocument } from '../resolve-document.ts';

/** Documents checked per call with `scope`. */
const MAX_SCOPE_DOCUMENTS = 50;

export const documentDriftVerb = defineVerb({
  name: 'document_drift',
  description: "Stale (target changed since the document was bound), gone, missing or ambiguous document-to-code links, for one document or the known documents under a folder (default: all).",
  input: Type.Object({
    agent_id: AgentId,
    path: Type.Optional(Type.String({ minLength: 1, description: 'Workspace path of the document' })),
    node_id: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'A graph node; its file is the document' })),
    scope: Type.Optional(Type.String({ minLength: 1, description: 'A workspace folder: every document bound before under it (default ".": all)' })),
    top_k: Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Findings returned' }),
  }),
  output: Type.Object({
    documents: Type.Array(Type.Object({})),
    counts: Type.Object({ stale: Type.Number(), gone: Type.Number(), missing: Type.Number(), ambiguous: Type.Number() }),
    findings: Type.Array(Type.Unknown()),
    truncated: Type.Boolean(),
  }),
  tiers: ['full'],
  effect: 'read',
  next: 'document_bindings',
  handler: async (args, call) => {
    const graph = call.service<GraphService>('graph');
    let paths: string[];
    // One named document, else the documents bound before under a folder (the whole workspace by default).
    const scope = args.path || args.node_id ? null : (args.scope ?? '.');
    if (scope === null) paths = [documentPath(graph, args)];
    else {
      const folder = graph.run(() => graph.engine.resolvePath(scope)).relative;
      const prefix = folder === '' ? '' : `${folder}/`;
      paths = knownDocuments(graph, prefix, MAX_SCOPE_DOCUMENTS + 1);
      if (paths.length === 0) {
        const where = folder === '' ? 'in the workspace' : `under ${folder}`;
        throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, `no document ${where} has been bound yet`, { hint: 'call document_bindings on a document first, or pass its path' });
      }
    }
    const documents: { path: string; baseline_at: string | null; findings: number }[] = [];
    const findings: (DriftFinding & { document: string })[] = [];
    for (const path of paths.slice(0, MAX_SCOPE_DOCUMENTS)) {
      if (call.signal.aborted) break;
      let doc;
      try {
        doc = await resolveDocument(graph, path, { signal: call.signal });
      } catch (error) {
        // A named document that is gone now, bound before: a finding, as under a scope; one never bound is an error.
        if (scope === null && !knownDocuments(graph, path, 1).includes(path)) throw error;
        findings.push({ document: path, kind: 'gone', text: path, line: 0, section: '', targets: [], reason: `document unreadable now: ${(error as Error).message}` });
        continue;
      }
      const { bindings } = await splitUnindexed(graph, await computeBindings(graph, path, doc.record.markdown));
      // Findings are read against the baseline as it was; a first look records one for next time.
      const found = await driftFindings(graph, doc.record, bindings, doc.mtimeMs);
      const baseline = await recordBaseline(graph, doc.record, bindings, doc.mtimeMs);
      documents.push({ path, baseline_at: new Date(baseline).toISOString(), findings: found.length });
      for (const f of found) findings.push({ document: path, ...f });
    }
    const order = { gone: 0, stale: 1, missing: 2, ambiguous: 3 };
    findings.sort((a, b) => order[a.kind] - order[b.kind] || a.document.localeCompare(b.document) || a.line - b.line);
    const counts = { stale: 0, gone: 0, missing: 0, ambiguous: 0 };
    for (const f of findings) counts[f.kind]++;
    return { documents, counts, findings: findings.slice(0, args.top_k), truncated: findings.length > args.top_k || paths.length > MAX_SCOPE_DOCUMENTS };
  },
});
