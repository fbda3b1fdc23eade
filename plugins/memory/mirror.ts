/**
 * The reviewable Markdown mirror: one file per shared claim (`<folder>/<claim id>.md`), YAML front
 * matter for the structured fields and the claim text verbatim as the body, so a team can commit
 * and review memory like code. Private (`agent`) claims are never mirrored. Writes are atomic
 * (temporary file, then rename) so a reader never sees half a claim.
 */
import path from 'node:path';
import { writeFileAtomic } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { Claim } from './claims.ts';
import { anchorLabel } from './evidence.ts';

// JSON strings are valid YAML scalars: every value is quoted that way, so no text can break the front matter.
const yaml = (v: unknown) => JSON.stringify(v);

/**
 * The Markdown text of a claim: front matter, a heading, the claim text verbatim, then an Evidence
 * section naming each anchor as a code path and symbol in backticks — which is what the graph's
 * Markdown pass turns into `documents` edges when the folder is inside the ingested workspace.
 */
export function claimMarkdown(c: Claim): string {
  const lines = [
    '---',
    `id: ${yaml(c.id)}`,
    `kind: ${yaml(c.kind)}`,
    `scope: ${yaml(c.scope)}`,
    `author: ${yaml(c.author)}`,
    `created: ${yaml(new Date(c.created_at).toISOString())}`,
    `verified: ${yaml(new Date(c.verified_at).toISOString())}`,
    `confidence: ${c.confidence}`,
    ...(c.topic ? [`topic: ${yaml(c.topic)}`] : []),
    ...(c.title ? [`title: ${yaml(c.title)}`] : []),
    ...(c.namespace ? [`namespace: ${yaml(c.namespace)}`] : []),
    ...(c.state ? [`state: ${yaml(c.state)}`] : []),
    ...(c.supersedes ? [`supersedes: ${yaml(c.supersedes)}`] : []),
    ...(c.superseded_by ? [`superseded_by: ${yaml(c.superseded_by)}`] : []),
    'evidence:',
    ...c.evidence.map((e) => `  - { ref: ${yaml(anchorLabel(e))}, path: ${yaml(e.path)}, hash: ${yaml(e.hash)} }`),
    ...(c.origin ? [`origin: ${yaml(c.origin)}`] : []),
    '---',
    '',
    `# ${c.title ? c.title.replace(/\s+/g, ' ') : `Claim ${c.id}`}`,
    '',
    c.text,
    '',
    ...(c.evidence.length ? ['## Evidence', '', ...c.evidence.map(evidenceLine), ''] : []),
  ];
  return lines.join('\n');
}

function evidenceLine(e: Claim['evidence'][number]): string {
  const symbol = e.node?.includes('#') ? e.node.slice(e.node.indexOf('#') + 1) : null;
  const lines = e.lines ? ` lines ${e.lines[0]}-${e.lines[1]}` : '';
  return `- \`${e.path}\`${symbol ? ` \`${symbol}\`` : ''}${lines} (hash ${e.hash})`;
}

/** One Markdown document listing several claims (memorize's `output_path`): a heading, then each claim with its evidence. */
export function claimsDocument(heading: string, claims: readonly Claim[]): string {
  const parts = [`# ${heading.replace(/\s+/g, ' ')}`, ''];
  for (const c of claims) {
    parts.push(`## ${c.kind}: ${c.id}`, '', c.text, '');
    if (c.evidence.length) parts.push(...c.evidence.map(evidenceLine), '');
  }
  return parts.join('\n');
}

/** Writes claims into the memory folder, one file each; returns the workspace-relative paths written. */
export class MarkdownMirror {
  constructor(
    private readonly graph: GraphService,
    private readonly folder: string,
    private readonly enabled = true,
  ) {}

  /** The folder, checked to stay inside the workspace. */
  dir(): { absolute: string; relative: string } {
    return this.graph.run(() => this.graph.engine.resolvePath(this.folder));
  }

  write(claims: readonly Claim[]): string[] {
    const shared = this.enabled ? claims.filter((c) => c.scope !== 'agent') : [];
    if (shared.length === 0) return [];
    const dir = this.dir();
    return shared.map((c) => {
      writeFileAtomic(path.join(dir.absolute, `${c.id}.md`), claimMarkdown(c));
      return path.posix.join(dir.relative, `${c.id}.md`);
    });
  }
}
