/**
 * Checking a doctrine document claim by claim against the workspace: paths exist, symbols are in
 * the graph, scripts named after npm/pnpm/yarn exist in package.json, make targets in the Makefile,
 * and versions named for Node, TypeScript and other dependencies match the manifests. Everything
 * else (intent, taste) is counted as not checkable — never reported as verified.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import type { GraphService } from '../../graph/api.ts';

export type ClaimClass = 'path' | 'symbol' | 'script' | 'make_target' | 'version';

/** One checked statement of the document. */
export interface SoulClaim {
  line: number;
  class: ClaimClass;
  claim: string;
  verdict: 'verified' | 'false' | 'unchecked';
  detail: string;
}

// Package-manager commands that run no script of the package.
const PM_BUILTINS = new Set(['install', 'i', 'ci', 'add', 'remove', 'uninstall', 'init', 'publish', 'exec', 'dlx', 'link', 'update', 'outdated', 'audit', 'pack', 'version', 'login', 'x']);
// Globals a document may name that are no workspace symbol.
const GLOBALS = new Set(['JSON', 'Math', 'Object', 'Array', 'Promise', 'console', 'process', 'Date', 'String', 'Number', 'Map', 'Set', 'os', 'sys', 'fs', 'path', 'self', 'this', 'window', 'document']);
const VERSIONED: Record<string, string> = { typescript: 'typescript', react: 'react', vue: 'vue', 'next.js': 'next', express: 'express', mocha: 'mocha', jest: 'jest', vite: 'vite', eslint: 'eslint' };

interface Manifests {
  pkg: { scripts?: Record<string, string>; engines?: Record<string, string>; dependencies?: Record<string, string>; devDependencies?: Record<string, string> } | null;
  makeTargets: Set<string> | null;
}

function readManifests(root: string): Manifests {
  const read = (f: string) => (existsSync(path.join(root, f)) ? readFileSync(path.join(root, f), 'utf8') : null);
  let pkg: Manifests['pkg'] = null;
  try {
    const text = read('package.json');
    pkg = text ? JSON.parse(text) : null;
  } catch {
    pkg = null;
  }
  const make = read('Makefile') ?? read('makefile');
  const makeTargets = make ? new Set([...make.matchAll(/^([A-Za-z0-9_.\-/]+)\s*:(?!=)/gm)].map((m) => m[1])) : null;
  return { pkg, makeTargets };
}

/** Checks every checkable statement of the document. */
export function checkSoul(graph: GraphService, text: string): { claims: SoulClaim[]; lines_not_checkable: number } {
  const root = graph.engine.root;
  const manifests = readManifests(root);
  const claims: SoulClaim[] = [];
  const seen = new Set<string>();
  let notCheckable = 0;
  let fenced = false;
  const add = (c: SoulClaim) => {
    const key = `${c.class}|${c.claim}`;
    if (seen.has(key)) return;
    seen.add(key);
    claims.push(c);
  };
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    if (/^\s*(```|~~~)/.test(raw)) {
      fenced = !fenced;
      return;
    }
    const before = claims.length;
    for (const m of raw.matchAll(/\b(npm|pnpm|yarn|bun)\s+(?:run\s+)?([A-Za-z0-9:_.-]+)/g)) add(checkScript(manifests, line, m[1], m[2]));
    // "make sure", "make it": in prose `make` is English; a make target is named in code (a span or a fenced block).
    const code = fenced ? raw : [...raw.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]).join('\n');
    for (const m of code.matchAll(/\bmake\s+([A-Za-z0-9_.-]+)/g)) add(checkMake(manifests, line, m[1]));
    for (const m of raw.matchAll(/\b(Node(?:\.js)?|TypeScript|React|Vue|Next\.js|Express|Mocha|Jest|Vite|ESLint)\s+v?(\d+(?:\.\d+){0,2})\b/g)) add(checkVersion(manifests, line, m[1], m[2]));
    if (!fenced) {
      const spans = [...raw.matchAll(/`([^`\n]+)`/g)].map((m) => m[1].trim());
      const links = [...raw.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z]+:\/\//i.test(t) && !t.startsWith('#') && !t.startsWith('mailto:'));
      for (const t of [...spans, ...links]) {
        const c = classify(t);
        if (c === 'path') add(checkPathOrSymbol(graph, line, t.replace(/#.*$/, '')));
        else if (c === 'symbol') add(checkSymbol(graph, line, t));
      }
    }
    if (claims.length === before && raw.trim() && !/^\s*#/.test(raw)) notCheckable++;
  });
  return { claims, lines_not_checkable: notCheckable };
}

/** What an inline code span or link target claims, if anything checkable. */
function classify(t: string): 'path' | 'symbol' | null {
  if (/\s/.test(t) || /[*?{}<>$|]/.test(t) || /^[a-z]+:\/\//i.test(t) || t.startsWith('-')) return null;
  if (t.includes('/') || /\.[A-Za-z0-9]{1,5}$/.test(t) && !/^[\w$]+\.[\w$]+\(\)$/.test(t) && !/^[A-Z]\w*\.[a-z]\w*$/.test(t)) return 'path';
  const ident = t.replace(/\(\)$/, '');
  if (!/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(ident)) return null;
  if (GLOBALS.has(ident.split('.')[0])) return null;
  // A bare lower-case word is prose as often as code: only `name()`, dotted names and camel/Pascal case count.
  if (t.endsWith('()') || ident.includes('.') || /[a-z][A-Z]|^[A-Z][a-z]+[A-Z]/.test(ident)) return 'symbol';
  return null;
}

function checkPath(graph: GraphService, line: number, p: string): SoulClaim {
  try {
    const abs = graph.engine.resolvePath(p).absolute;
    return existsSync(abs) ? { line, class: 'path', claim: p, verdict: 'verified', detail: 'exists' } : { line, class: 'path', claim: p, verdict: 'false', detail: 'no such file or directory in the workspace' };
  } catch {
    return { line, class: 'path', claim: p, verdict: 'false', detail: 'outside the workspace' };
  }
}

/**
 * A path-looking span: a file or directory, or else — a dotted name without a slash, like
 * `boolValue.Set` or `config.json` — a symbol of the graph before it is called false.
 */
function checkPathOrSymbol(graph: GraphService, line: number, t: string): SoulClaim {
  const asPath = checkPath(graph, line, t);
  if (asPath.verdict === 'verified' || t.includes('/') || !/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+$/.test(t)) return asPath;
  const asSymbol = checkSymbol(graph, line, t);
  // A file of that name elsewhere is not the path the document names.
  const symbol = asSymbol.verdict === 'verified' && !['file', 'module'].includes(graph.engine.getNode(asSymbol.detail)?.kind ?? 'file');
  return symbol ? asSymbol : { ...asPath, detail: 'no such file or directory in the workspace, nor a symbol of that name' };
}

function checkSymbol(graph: GraphService, line: number, t: string): SoulClaim {
  const name = t.replace(/\(\)$/, '');
  const hit = graph.engine.findNodes(name, { limit: 1 })[0];
  if (hit && hit.via !== 'seek') return { line, class: 'symbol', claim: t, verdict: 'verified', detail: hit.node.id };
  if (graph.engine.graph.nodeCount === 0) return { line, class: 'symbol', claim: t, verdict: 'unchecked', detail: 'no graph: ingest first' };
  return { line, class: 'symbol', claim: t, verdict: 'false', detail: 'no symbol of that name in the graph' };
}

function checkScript(m: Manifests, line: number, pm: string, name: string): SoulClaim {
  const claim = `${pm} ${name}`;
  if (PM_BUILTINS.has(name)) return { line, class: 'script', claim, verdict: 'unchecked', detail: `"${name}" is a ${pm} command, not a script` };
  if (!m.pkg) return { line, class: 'script', claim, verdict: 'false', detail: 'no package.json at the workspace root' };
  return m.pkg.scripts?.[name] !== undefined
    ? { line, class: 'script', claim, verdict: 'verified', detail: `package.json scripts.${name}` }
    : { line, class: 'script', claim, verdict: 'false', detail: `package.json has no script "${name}" (scripts: ${Object.keys(m.pkg.scripts ?? {}).join(', ') || 'none'})` };
}

function checkMake(m: Manifests, line: number, target: string): SoulClaim {
  const claim = `make ${target}`;
  if (!m.makeTargets) return { line, class: 'make_target', claim, verdict: 'false', detail: 'no Makefile at the workspace root' };
  return m.makeTargets.has(target) ? { line, class: 'make_target', claim, verdict: 'verified', detail: 'Makefile target' } : { line, class: 'make_target', claim, verdict: 'false', detail: `the Makefile has no target "${target}"` };
}

function checkVersion(m: Manifests, line: number, what: string, version: string): SoulClaim {
  const claim = `${what} ${version}`;
  const lower = what.toLowerCase();
  const range = lower.startsWith('node') ? m.pkg?.engines?.node : (m.pkg?.dependencies?.[VERSIONED[lower]] ?? m.pkg?.devDependencies?.[VERSIONED[lower]]);
  if (!range) return { line, class: 'version', claim, verdict: 'unchecked', detail: `no ${lower.startsWith('node') ? 'engines.node' : `${VERSIONED[lower]} dependency`} in package.json` };
  const min = semver.minVersion(range);
  if (!min) return { line, class: 'version', claim, verdict: 'unchecked', detail: `cannot read the range "${range}"` };
  // "TypeScript 5.9" claims the major.minor the manifest pins at least.
  const parts = version.split('.').map(Number);
  const have = [min.major, min.minor, min.patch];
  const ok = parts.every((p, i) => p === have[i]);
  return { line, class: 'version', claim, verdict: ok ? 'verified' : 'false', detail: `package.json says ${range}` };
}
