/**
 * The findings the ingest computes in its parse (structure's parse extension) against the findings
 * the scans compute on demand (computeFacts, the facts workers' code), file by file and rule by
 * rule; and the graph built with the extension registered against one built without it (every node
 * id and edge, hashed). Prints the counts and any difference; exits 1 on one.
 *
 *   node --import tsx bench/structure-equality.ts [--corpus DIR]... (default: the python3 stdlib, site-packages excluded)
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodeGraphEngine } from '../plugins/graph/engine/engine.ts';
import type { GraphService } from '../plugins/graph/service.ts';
import { CODE_RULES } from '../plugins/structure/code-rules.ts';
import { classNamesOf } from '../plugins/structure/facts-cache.ts';
import { computeFacts } from '../plugins/structure/file-facts.ts';
import '../plugins/structure/grammars.ts';
import { findingsExtensionSpec, ingestFindings } from '../plugins/structure/ingest-findings.ts';

const EXCLUDE = ['site-packages/**', '**/node_modules/**'];

/** sha1 of every node id and edge (source, relation, target), sorted; and the counts. */
function graphHash(engine: CodeGraphEngine): { nodes: number; edges: number; hash: string } {
  const g = engine.graph;
  const lines: string[] = [];
  for (const [i, n] of g.nodes()) {
    lines.push(`n ${n.id} ${n.kind} ${n.startLine}-${n.endLine}`);
    for (const e of g.outgoing(n.id)) lines.push(`e ${n.id} ${e.relation} ${e.target} ${e.weight}`);
    void i;
  }
  lines.sort();
  return { nodes: g.nodeCount, edges: g.edgeCount, hash: createHash('sha1').update(lines.join('\n')).digest('hex').slice(0, 16) };
}

async function compare(root: string): Promise<number> {
  const dirs = [mkdtempSync(join(tmpdir(), 'm1nd-eq-a-')), mkdtempSync(join(tmpdir(), 'm1nd-eq-b-'))];
  try {
    const plain = new CodeGraphEngine({ root, storeDir: dirs[1], exclude: EXCLUDE, typeCheck: false });
    await plain.open();
    await plain.ingest();
    const without = graphHash(plain);
    await plain.close();

    const engine = new CodeGraphEngine({ root, storeDir: dirs[0], exclude: EXCLUDE, typeCheck: false });
    engine.registerParseExtension(findingsExtensionSpec());
    await engine.open();
    await engine.ingest();
    const withExt = graphHash(engine);
    console.log(`equality: ${root}: graph without the extension ${without.nodes} nodes ${without.edges} edges ${without.hash}; with it ${withExt.nodes} nodes ${withExt.edges} edges ${withExt.hash}: ${without.hash === withExt.hash ? 'identical' : 'DIFFERENT'}`);
    let differences = without.hash === withExt.hash ? 0 : 1;

    const languages = new Set(CODE_RULES.flatMap((r) => r.languages));
    const files: { path: string; language: NonNullable<ReturnType<typeof engine.getNode>>['language'] }[] = [];
    for (const [, n] of engine.graph.nodes()) if (n.kind === 'file' && n.language && languages.has(n.language)) files.push({ path: n.path, language: n.language });
    files.sort((a, b) => a.path.localeCompare(b.path));
    const classes = classNamesOf(engine.graph).set;
    const stored = ingestFindings({ engine } as unknown as GraphService, files, classes);
    let findings = 0;
    let missing = 0;
    const byRule = new Map<string, number>();
    for (const f of files) {
      const fromIngest = stored.get(f.path);
      if (!fromIngest) {
        missing++;
        continue;
      }
      const text = readFileSync(join(root, f.path), 'utf8');
      const facts = await computeFacts(f.language!, text, f.path, classes);
      const onDemand = facts?.findings ?? {};
      const rules = new Set([...Object.keys(onDemand), ...Object.keys(fromIngest)]);
      for (const rule of rules) {
        const a = JSON.stringify(fromIngest[rule] ?? []);
        const b = JSON.stringify(onDemand[rule] ?? []);
        if (a !== b) {
          differences++;
          if (differences <= 5) console.log(`equality: DIFFERENT ${f.path} ${rule}\n  ingest    ${a.slice(0, 400)}\n  on demand ${b.slice(0, 400)}`);
        }
        const n = onDemand[rule]?.length ?? 0;
        findings += n;
        byRule.set(rule, (byRule.get(rule) ?? 0) + n);
      }
    }
    console.log(`equality: ${root}: ${files.length} code files, ${files.length - missing} with the ingest's findings (${missing} without), ${findings} findings compared one by one (${[...byRule].sort().map(([r, n]) => `${r} ${n}`).join(', ')}): ${differences === 0 ? 'identical' : `${differences} difference(s)`}`);
    await engine.close();
    return differences;
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

const corpora: string[] = [];
for (let i = 0; i < process.argv.length; i++) if (process.argv[i] === '--corpus') corpora.push(process.argv[i + 1]);
if (corpora.length === 0) corpora.push(execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim());
let total = 0;
for (const root of corpora) total += await compare(root);
process.exit(total === 0 ? 0 : 1);
