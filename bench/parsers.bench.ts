/**
 * Parser throughput: full extraction vs a parse-only floor (Parser.parse + tree.delete, same grammars),
 * measured interleaved in one process over sources read into memory first.
 * Default corpus: the Python standard library without test/, site-packages and files over 1 MB.
 * Run: node --import tsx bench/parsers.bench.ts [dir] [rounds]
 * With a dir, every file of a tree-sitter language under it is used (Markdown is skipped: it has no parse floor).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Language } from '../plugins/graph/engine/extraction.ts';
import { detectLanguage, extractorFor, initParsers, type Extractor } from '../plugins/graph/engine/parsers/index.ts';
import { createParser, loadGrammar, type GrammarName } from '../plugins/graph/engine/parsers/tree-sitter.ts';
import type { Parser } from 'web-tree-sitter';

const MAX_BYTES = 1024 * 1024;
const SKIPPED_DIRS = new Set(['site-packages', '__pycache__', 'node_modules', '.git']);

interface SourceFile {
  path: string;
  language: GrammarName;
  source: string;
}

function stdlibDir(): string {
  const script = 'import sysconfig; print(sysconfig.get_paths()["stdlib"])';
  return execFileSync('python3', ['-c', script], { encoding: 'utf8' }).trim();
}

function corpus(root: string): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      const relPath = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        // The stdlib's own test suite is not part of the benchmark corpus.
        if (relPath === 'test' || SKIPPED_DIRS.has(entry.name)) continue;
        walk(full, relPath);
        continue;
      }
      const language = detectLanguage(entry.name);
      if (!entry.isFile() || language === null || language === 'markdown' || statSync(full).size > MAX_BYTES) continue;
      files.push({ path: relPath, language, source: readFileSync(full, 'utf8') });
    }
  };
  walk(root, '');
  return files;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function countLines(source: string): number {
  let n = source.length > 0 && !source.endsWith('\n') ? 1 : 0;
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) n++;
  return n;
}

async function main(): Promise<void> {
  const root = process.argv[2] || stdlibDir();
  const rounds = Number(process.argv[3] || 5);
  const files = corpus(root);
  const lines = files.reduce((sum, f) => sum + countLines(f.source), 0);
  const languages = [...new Set(files.map((f) => f.language))];

  const tLoad = performance.now();
  await initParsers(languages as Language[]);
  const extractors = new Map<GrammarName, Extractor>();
  const parsers = new Map<GrammarName, Parser>();
  for (const language of languages) {
    extractors.set(language, await extractorFor(language));
    parsers.set(language, createParser(await loadGrammar(language)));
  }
  const loadMs = performance.now() - tLoad;

  const parseOnly = (): number => {
    const t0 = performance.now();
    for (const f of files) parsers.get(f.language)!.parse(f.source)?.delete();
    return (performance.now() - t0) / 1000;
  };
  let totals: Record<string, number> = {};
  const full = (): number => {
    const t0 = performance.now();
    const sums = { symbols: 0, imports: 0, calls: 0, references: 0, inherits: 0, filesWithErrors: 0 };
    for (const f of files) {
      const x = extractors.get(f.language)!(f.path, f.source);
      sums.symbols += x.symbols.length;
      sums.imports += x.imports.length;
      sums.calls += x.calls.length;
      sums.references += x.references.length;
      sums.inherits += x.inherits.length;
      if (x.parseErrors > 0) sums.filesWithErrors++;
    }
    totals = sums;
    return (performance.now() - t0) / 1000;
  };

  // One warm-up of each (WASM tiers up), then interleaved rounds so both see the same machine state.
  parseOnly();
  full();
  const floors: number[] = [];
  const fulls: number[] = [];
  for (let i = 0; i < rounds; i++) {
    floors.push(parseOnly());
    fulls.push(full());
  }
  const row = (label: string, secs: number[]): string => {
    const med = median(secs);
    const best = Math.min(...secs);
    const rate = (s: number): string => `${Math.round(lines / s / 1000)}k lines/s`;
    return `${label.padEnd(11)} median ${med.toFixed(2)} s (${rate(med)}), best ${best.toFixed(2)} s (${rate(best)})`;
  };
  console.log(`corpus      ${root}`);
  console.log(`files       ${files.length} (${languages.join(', ')}), ${lines} lines, ${rounds} rounds, grammar load ${Math.round(loadMs)} ms`);
  console.log(row('parse only', floors));
  console.log(row('extraction', fulls));
  const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}x`;
  console.log(`ratio       median ${ratio(median(fulls), median(floors))}, best ${ratio(Math.min(...fulls), Math.min(...floors))} of the parse-only floor`);
  console.log(`extracted   ${JSON.stringify(totals)}`);
  console.log(`rss         ${Math.round(process.memoryUsage().rss / 1e6)} MB`);
}

await main();
