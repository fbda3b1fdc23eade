/**
 * Parse trust check: extracts every TS/JS/Python file under a directory with the engine's tree-sitter
 * parsers and compares which files have parse errors with the language's own parser (the TypeScript
 * compiler's parse diagnostics; CPython's `ast.parse` through `python3`). It also counts symbols named
 * like a keyword, the mark of a declaration taken from a mis-parse.
 * Run: node --import tsx scripts/parse-check.ts <dir> [--list]
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { detectLanguage, extractorFor, initParsers } from '../plugins/graph/engine/parsers/index.ts';

const SKIPPED_DIRS = new Set(['node_modules', '.git', '__pycache__', 'site-packages', 'dist', 'build']);
const MAX_BYTES = 1024 * 1024;
// Words no TS/JS/Python declaration of real code is named (`delete`/`return` can be legitimate members).
const KEYWORDS = new Set(['const', 'let', 'var', 'if', 'else', 'for', 'while', 'do', 'switch', 'case', 'try', 'catch', 'finally', 'def', 'class', 'elif', 'except', 'lambda', 'with', 'yield', 'await', 'function', 'import', 'from']);

interface Checked {
  path: string;
  language: string;
  treeSitterErrors: number;
  firstErrorLine?: number;
  ownParserErrors: number | null;
  keywordSymbols: string[];
}

function walk(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string, rel: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (SKIPPED_DIRS.has(entry.name)) continue;
      const relPath = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) visit(join(dir, entry.name), relPath);
      else if (entry.isFile() && statSync(join(dir, entry.name)).size <= MAX_BYTES) out.push(relPath);
    }
  };
  visit(root, '');
  return out.sort();
}

function tsErrors(path: string, source: string): number {
  const kind = path.endsWith('x') ? ts.ScriptKind.TSX : /\.[cm]?js$/.test(path) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, false, kind);
  return (file as unknown as { parseDiagnostics: readonly unknown[] }).parseDiagnostics.length;
}

/** Errors per file from CPython's own parser, in one python3 process. */
function pythonErrors(root: string, paths: string[]): Map<string, number> {
  if (paths.length === 0) return new Map();
  const script = [
    'import ast, sys, json, warnings',
    'warnings.simplefilter("ignore")',
    'out = {}',
    'for p in json.load(sys.stdin):',
    '    try:',
    '        ast.parse(open(sys.argv[1] + "/" + p, "rb").read())',
    '        out[p] = 0',
    '    except (SyntaxError, ValueError):',
    '        out[p] = 1',
    'print(json.dumps(out))',
  ].join('\n');
  const json = execFileSync('python3', ['-c', script, root], { input: JSON.stringify(paths), encoding: 'utf8', maxBuffer: 64 << 20 });
  return new Map(Object.entries(JSON.parse(json) as Record<string, number>));
}

async function main(): Promise<void> {
  const root = process.argv[2];
  if (root === undefined) throw new Error('usage: parse-check.ts <dir> [--list]');
  await initParsers();
  const checked: Checked[] = [];
  for (const path of walk(root)) {
    const language = detectLanguage(path);
    if (language !== 'typescript' && language !== 'tsx' && language !== 'javascript' && language !== 'python') continue;
    const source = readFileSync(join(root, path), 'utf8');
    const x = (await extractorFor(language))(path, source);
    const keywordSymbols = x.symbols.filter((s) => KEYWORDS.has(s.name)).map((s) => `${s.name}@${s.startLine}`);
    const entry: Checked = { path, language, treeSitterErrors: x.parseErrors, ownParserErrors: language === 'python' ? null : tsErrors(path, source), keywordSymbols };
    if (x.parseErrorLine !== undefined) entry.firstErrorLine = x.parseErrorLine;
    checked.push(entry);
  }
  const py = pythonErrors(root, checked.filter((c) => c.language === 'python').map((c) => c.path));
  for (const c of checked) if (c.language === 'python') c.ownParserErrors = py.get(c.path) ?? null;
  const withTs = checked.filter((c) => c.treeSitterErrors > 0);
  const accepted = withTs.filter((c) => c.ownParserErrors === 0);
  console.log(`files: ${checked.length}`);
  console.log(`tree-sitter errors: ${withTs.length} files (${withTs.reduce((a, c) => a + c.treeSitterErrors, 0)} errors)`);
  console.log(`  of which the language's own parser accepts: ${accepted.length}`);
  console.log(`own parser errors: ${checked.filter((c) => (c.ownParserErrors ?? 0) > 0).length} files`);
  console.log(`symbols named like a keyword: ${checked.reduce((a, c) => a + c.keywordSymbols.length, 0)}`);
  if (process.argv.includes('--list')) {
    for (const c of withTs) console.log(`  ${c.path}: ${c.treeSitterErrors} errors, first line ${c.firstErrorLine ?? '?'}, own parser ${c.ownParserErrors}`);
    for (const c of checked) if (c.keywordSymbols.length > 0) console.log(`  keyword symbols in ${c.path}: ${c.keywordSymbols.join(' ')}`);
  }
}

await main();
