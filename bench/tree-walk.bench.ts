/**
 * The shape readers' syntax-tree walk (plugins/structure/tree-walk.ts): every node of a corpus's
 * parsed Python files visited in pre-order (type id at each), through the runtime's cursor functions
 * on the transfer buffer against web-tree-sitter's public `TreeCursor` (the baseline), same run,
 * alternated rounds; both must visit the same nodes.
 *
 *   node --import tsx bench/tree-walk.bench.ts [<dir of .py files>] [files]   (or: npm run bench tree-walk)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import '../plugins/structure/grammars.ts';
import { parseCode, type Tree } from '../plugins/structure/code-trees.ts';
import { walkTree } from '../plugins/structure/tree-walk.ts';

function visit(tree: Tree, publicCursor: boolean): [number, number] {
  const walk = walkTree(tree.rootNode, publicCursor);
  let nodes = 0;
  let sum = 0;
  try {
    for (;;) {
      sum = (sum + walk.typeId()) | 0;
      nodes++;
      if (walk.gotoFirstChild()) continue;
      while (!walk.gotoNextSibling()) if (!walk.gotoParent()) return [nodes, sum];
    }
  } finally {
    walk.done();
  }
}

export async function run(): Promise<void> {
  const root = process.argv[2] ?? execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  const limit = Number(process.argv[3] ?? 600);
  const files: string[] = [];
  const collect = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'site-packages') collect(path);
      } else if (name.endsWith('.py')) files.push(path);
    }
  };
  collect(root);
  const trees: Tree[] = [];
  for (const f of files.slice(0, limit)) {
    const parsed = await parseCode('python', readFileSync(f, 'utf8'));
    if (parsed) trees.push(parsed.tree);
  }

  const best = { raw: Infinity, public: Infinity };
  let counts = '';
  for (let round = 0; round < 4; round++) {
    for (const kind of ['public', 'raw'] as const) {
      const t0 = performance.now();
      let nodes = 0;
      let sum = 0;
      for (const tree of trees) {
        const [n, s] = visit(tree, kind === 'public');
        nodes += n;
        sum = (sum + s) | 0;
      }
      best[kind] = Math.min(best[kind], performance.now() - t0);
      const seen = `${nodes} nodes, type-id sum ${sum}`;
      if (counts && counts !== seen) throw new Error(`the walks differ: ${counts} against ${seen}`);
      counts = seen;
    }
  }
  for (const t of trees) t.delete();
  console.log(`tree-walk: ${trees.length} files, ${counts}; best of 4: public cursor ${best.public.toFixed(0)} ms, runtime's cursor functions ${best.raw.toFixed(0)} ms; ratio ${(best.public / best.raw).toFixed(2)}×`);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
