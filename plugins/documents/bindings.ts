/**
 * Bindings: a document's mentions resolved against the graph. A path binds to its file node (from the
 * workspace root, then from the document's folder), or to the workspace file itself when the graph
 * does not parse it (a shell script, a YAML file: `in_graph: false`); a symbol to the nodes whose name
 * or qualified name it is (sections excluded), and a symbol qualified by its file (`src/a.ts#f`) to
 * those in that file; a command to the package.json script or Makefile target it runs, or the
 * workspace script it starts. Scores are the evidence strength divided by the number of candidates,
 * so an ambiguous name scores lower than a unique one.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { isTestOrMock, symbolIndex, underNames, type CodeGraph, type GraphNode, type GraphService, type SymbolIndex } from '../graph/api.ts';
import { fileSymbol, readMentions, type Evidence, type Mention } from './mentions.ts';

const STRENGTH: Record<Evidence, number> = { code_span: 1, shell: 0.95, link: 0.95, path: 0.95, call: 0.85, prose_command: 0.8, identifier: 0.6 };
/** Candidates listed for an ambiguous mention at most. */
const MAX_CANDIDATES = 5;

export interface BindingTarget {
  id: string;
  path: string;
  lines: [number, number];
  /** For commands: the script or target run. */
  detail?: string;
  /** False for a workspace file the graph has no node for (not parsed: a shell script, YAML…); its id is `file:<path>` all the same. */
  in_graph?: false;
}

export interface Binding {
  text: string;
  kind: Mention['kind'];
  evidence: Evidence;
  status: 'bound' | 'ambiguous' | 'missing';
  score: number;
  /** Mentions of this text in the document. */
  mentions: number;
  first_line: number;
  section: string;
  targets: BindingTarget[];
  candidates?: number;
}

/** Every binding of a document's Markdown, strongest first (unresolved prose identifiers dropped). */
export async function computeBindings(graph: GraphService, docPath: string, markdown: string): Promise<Binding[]> {
  return (await bindingResolver(graph))(docPath, readMentions(markdown));
}

/**
 * A resolver of mentions against the graph as it is now (refreshed once, unless `refresh: false`):
 * the name index and the command targets are shared by every document it resolves.
 */
export async function bindingResolver(graph: GraphService, options: { refresh?: boolean } = {}): Promise<(docPath: string, mentions: readonly Mention[]) => Binding[]> {
  const engine = options.refresh === false ? graph.engine : await graph.requireGraph();
  const g = engine.graph;
  const names = await symbolIndex(g);
  const files = workspaceFiles(graph);
  const named = filesNamed(g);
  const scripts = commandTargets(graph, files, named);
  return (docPath, mentions) => {
    const byText = new Map<string, Binding>();
    const docDir = docPath.includes('/') ? docPath.slice(0, docPath.lastIndexOf('/') + 1) : '';
    for (const m of mentions) {
      const key = `${m.kind}:${m.text}`;
      const seen = byText.get(key);
      if (seen) {
        seen.mentions++;
        continue;
      }
      let targets: BindingTarget[] = [];
      if (m.kind === 'path') {
        const file = files(m.text) ?? files(normalize(docDir + m.text)) ?? (m.evidence === 'link' ? moduleFile(files, m.text, docDir) : null);
        // A bare file name (`__version__.py`) found at neither place: the graph's files of that name.
        if (file) targets = [file];
        else if (!m.text.includes('/')) targets = named(m.text).map(target);
      } else if (m.kind === 'symbol') {
        const qualified = fileSymbol(m.text);
        targets = qualified ? fileSymbolTargets(names, files, qualified, docDir) : symbolTargets(g, names, m.text, docPath);
      } else {
        targets = scripts(m.text);
      }
      // Prose words that only look like code or commands ("make sure"), prose file names that may be products
      // ("Node.js", "VCR.py") and commands of outside tools (`pip install x`, `git clone …`) count when they resolve.
      if (targets.length === 0 && (m.evidence === 'identifier' || m.evidence === 'prose_command' || (m.evidence === 'path' && !m.text.includes('/')) || (m.kind === 'command' && !runsWorkspace(m.text)))) continue;
      const count = targets.length;
      byText.set(key, {
        text: m.text,
        kind: m.kind,
        evidence: m.evidence,
        status: count === 0 ? 'missing' : count === 1 ? 'bound' : 'ambiguous',
        score: count === 0 ? 0 : round(STRENGTH[m.evidence] / count),
        mentions: 1,
        first_line: m.line,
        section: m.section,
        targets: targets.slice(0, MAX_CANDIDATES),
        ...(count > MAX_CANDIDATES ? { candidates: count } : {}),
      });
    }
    return [...byText.values()].sort((a, b) => b.score - a.score || a.first_line - b.first_line);
  };
}

/**
 * The nodes a written symbol names: by its name or qualified name; else, for `pkg.Name` (`httpx.AsyncClient`,
 * a package's public name for a class defined in `httpx/_client.py`), by the rest of the name among
 * nodes under a folder or file the leading segments name.
 */
function symbolTargets(g: CodeGraph, names: SymbolIndex, text: string, docPath: string): BindingTarget[] {
  const direct = meant(g, names.lookup(text).filter((n) => n.path !== docPath), text, docPath);
  if (direct.length > 0) return direct.map(target);
  const parts = text.replace(/\(\)$/, '').split(/::|#|\./);
  for (let k = 1; k < parts.length; k++) {
    // The leading names, in order, as consecutive path segments (`httpx` → `httpx/_client.py`; `a.b` → `src/a/b.py`).
    // The rest is the name's whole qualified name in that module: `pkg.get` is a function of the package, not `Headers.get` in it.
    const prefix = parts.slice(0, k);
    const rest = parts.slice(k).join('.');
    const found = names.lookup(rest).filter((n) => n.path !== docPath && (n.qualifiedName ?? n.label).replace(/::|#/g, '.') === rest && underNames(n.path, prefix));
    if (found.length > 0) return found.map(target);
  }
  // An instance named after its class, as documents write them: `response.json` is `Response.json`, `async_client.send` `AsyncClient.send`.
  if (parts.length === 2 && /^[a-z][a-z\d_]*$/.test(parts[0])) {
    const cls = parts[0].replace(/_/g, '');
    const found = names.lookup(parts[1]).filter((n) => {
      const owner = n.qualifiedName?.split('.');
      if (n.path === docPath || owner?.length !== 2 || owner[0].replace(/_/g, '').toLowerCase() !== cls) return false;
      return names.labelled(owner[0]).some((c) => CLASS_KINDS.has(c.kind) && c.path === n.path);
    });
    if (found.length > 0) return found.map(target);
  }
  return [];
}

const CLASS_KINDS = new Set(['class', 'interface', 'type']);
const DECLARATION_FILE = /\.d\.[cm]?ts$/;

/**
 * The nodes a name written without its outer names can mean: not a function local to another one
 * (`test_x.endpoint`, not reachable by that name); not a declaration file's (`.d.ts`) copy of a
 * symbol the code defines under the same qualified name; not a test's or mock's when the code has
 * one (unless the document is itself among the tests).
 */
function meant(g: CodeGraph, nodes: GraphNode[], text: string, docPath: string): GraphNode[] {
  const written = text.replace(/\(\)$/, '').replace(/::|#/g, '.');
  let out = nodes.filter((n) => {
    const q = n.qualifiedName ?? n.label;
    const outer = q.includes('.') ? q.slice(0, q.lastIndexOf('.')) : null;
    return q === written || !outer || !(g.get(`function:${n.path}#${outer}`) || g.get(`method:${n.path}#${outer}`));
  });
  const defined = new Set(out.filter((n) => !DECLARATION_FILE.test(n.path)).map((n) => n.qualifiedName ?? n.label));
  out = out.filter((n) => !DECLARATION_FILE.test(n.path) || !defined.has(n.qualifiedName ?? n.label));
  if (!isTestOrMock(docPath) && out.some((n) => !isTestOrMock(n.path))) out = out.filter((n) => !isTestOrMock(n.path));
  return out;
}

/**
 * The nodes a symbol qualified by its file names (`src/a.ts#helper`: `helper` in `src/a.ts`, the file
 * from the root, then from the document's folder). A file the graph has no symbols of (not parsed,
 * `config/app.yaml:port`) binds as the file itself; a parsed one without that name, nothing.
 */
function fileSymbolTargets(names: SymbolIndex, files: (path: string) => BindingTarget | null, q: { file: string; name: string }, docDir: string): BindingTarget[] {
  for (const path of [normalize(q.file), normalize(docDir + q.file)]) {
    const file = files(path);
    if (!file) continue;
    if (file.in_graph === false) return [file];
    return names.lookup(q.name).filter((n) => n.path === path).map(target);
  }
  return [];
}

/**
 * A workspace file by its path: its graph node, else the file on disk (`in_graph: false`), else null.
 * Paths that leave the workspace (`..`, a symlink out) are nothing; lookups are remembered for the
 * resolver's life (one pass).
 */
function workspaceFiles(graph: GraphService): (path: string) => BindingTarget | null {
  const g = graph.engine.graph;
  const seen = new Map<string, BindingTarget | null>();
  return (path) => {
    const node = g.get(`file:${path}`);
    if (node) return target(node);
    let found = seen.get(path);
    if (found === undefined) {
      found = path && isWorkspaceFile(graph, path) ? { id: `file:${path}`, path, lines: [1, 1], in_graph: false } : null;
      seen.set(path, found);
    }
    return found;
  };
}

/** Whether a workspace-relative path is a file inside the workspace (refused paths are not). */
function isWorkspaceFile(graph: GraphService, path: string): boolean {
  try {
    return statSync(graph.engine.resolvePath(path).absolute, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

/** Whether a bound target is still there: its node, or for a file outside the graph, the file. */
export function targetExists(graph: GraphService, id: string): boolean {
  if (graph.engine.graph.get(id)) return true;
  return id.startsWith('file:') && isWorkspaceFile(graph, id.slice('file:'.length));
}

/** A fingerprint of a target's text now (its lines, or its whole file — also a file the graph does not parse —, whitespace folded); null when unreadable. */
export function fingerprint(graph: GraphService, t: { id: string }): string | null {
  const node = graph.engine.graph.get(t.id);
  if (!node && !t.id.startsWith('file:')) return null;
  try {
    const content = graph.engine.readFile(node?.path ?? t.id.slice('file:'.length)).content;
    const text = !node || node.kind === 'file' ? content : content.split('\n').slice(node.startLine - 1, node.endLine).join('\n');
    return createHash('sha1').update(text.replace(/\s+/g, ' ').trim()).digest('hex').slice(0, 16);
  } catch {
    return null;
  }
}

function target(n: GraphNode): BindingTarget {
  return { id: n.id, path: n.path, lines: [n.startLine, n.endLine] };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function normalize(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '..') out.pop();
    else if (part !== '.' && part !== '') out.push(part);
  }
  return out.join('/');
}

/** Extensions an import without one may mean, in the order bundlers try them. */
const MODULE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.js', '.jsx', '.mjs', '.cjs', '.mdx', '.md', '.json'];

/** The file an extensionless import names (`../src/components/Playground` → `….tsx`, or its folder's `index.*`), from the document's folder. */
function moduleFile(files: (path: string) => BindingTarget | null, text: string, docDir: string): BindingTarget | null {
  if (/\.\w+$/.test(text.slice(text.lastIndexOf('/') + 1))) return null;
  const base = normalize(docDir + text);
  for (const ext of MODULE_EXTENSIONS) {
    const found = files(base + ext) ?? files(`${base}/index${ext}`);
    if (found) return found;
  }
  return null;
}

/** A command word that is a path (`scripts/test`, `./x`, `split.js`), not a URL or an option. */
const PATH_WORD = (word: string) => !word.includes('://') && !word.startsWith('-') && !word.includes('=') && (/\.\w+$/.test(word) || word.includes('/'));

/**
 * Whether a command is meant to run something of the workspace — a package-manager script, a make
 * target, a file it names by path — so that resolving to nothing makes it missing.
 */
function runsWorkspace(command: string): boolean {
  const words = command.split(/\s+/);
  if (words.slice(0, 3).some(PATH_WORD) || words[0] === 'make') return true;
  if (!['npm', 'yarn', 'pnpm', 'bun'].includes(words[0]) || !words[1]) return false;
  // `npm run x`, `npm test`, `yarn build` run a script; `npm install x`, `pnpm add x`, `yarn dlx x` are the tool's own commands.
  if (/^run(?:-script)?$/.test(words[1])) return Boolean(words[2]);
  if (words[0] === 'npm') return /^(?:test|start|stop|restart)$/.test(words[1]);
  return !PACKAGE_MANAGER_COMMANDS.has(words[1]) && !words[1].startsWith('-');
}

/** Commands of yarn, pnpm and bun themselves (any other word runs the package.json script of that name). */
const PACKAGE_MANAGER_COMMANDS = new Set('install i add remove rm uninstall ci init create exec dlx x publish link unlink update upgrade up outdated audit pack version config info view why list ls login logout global dedupe rebuild cache help set store import patch workspace workspaces'.split(' '));

/** The graph's files by their base name (`__version__.py` → `pkg/__version__.py`), indexed on first use. */
function filesNamed(g: CodeGraph): (name: string) => GraphNode[] {
  let byName: Map<string, GraphNode[]> | null = null;
  return (name) => {
    if (!byName) {
      byName = new Map();
      for (let i = 0; i < g.nodeCapacity; i++) {
        const n = g.node(i);
        if (n?.kind !== 'file') continue;
        const base = n.path.slice(n.path.lastIndexOf('/') + 1);
        const list = byName.get(base);
        if (list) list.push(n);
        else byName.set(base, [n]);
      }
    }
    return byName.get(name) ?? [];
  };
}

/** Resolves commands against the workspace's package.json scripts, Makefile targets and script files. */
function commandTargets(graph: GraphService, files: (path: string) => BindingTarget | null, named: (name: string) => GraphNode[]): (command: string) => BindingTarget[] {
  const read = (path: string): string | null => {
    try {
      return graph.engine.readFile(path).content;
    } catch {
      return null;
    }
  };
  let scripts: Record<string, string> | null | undefined;
  let make: string | null | undefined;
  const g: CodeGraph = graph.engine.graph;
  const fileTarget = (path: string, detail: string, line = 1): BindingTarget => ({ id: `file:${path}`, path, lines: [line, line], detail, ...(g.get(`file:${path}`) ? {} : { in_graph: false as const }) });
  return (command) => {
    const words = command.split(/\s+/);
    const tool = words[0];
    if (['npm', 'yarn', 'pnpm', 'bun'].includes(tool)) {
      const name = words[1] === 'run' || words[1] === 'run-script' ? words[2] : words[1];
      if (!name) return [];
      if (scripts === undefined) {
        const text = read('package.json');
        try {
          scripts = text ? ((JSON.parse(text) as { scripts?: Record<string, string> }).scripts ?? {}) : null;
        } catch {
          scripts = null;
        }
      }
      if (!scripts || !(name in scripts)) return [];
      const line = (read('package.json') ?? '').split('\n').findIndex((l) => l.includes(`"${name}"`)) + 1;
      return [fileTarget('package.json', `script ${name}: ${scripts[name]}`, line || 1)];
    }
    if (tool === 'make') {
      if (make === undefined) make = read('Makefile');
      const name = words[1];
      if (!make || !name) return [];
      const line = make.split('\n').findIndex((l) => l.startsWith(`${name}:`)) + 1;
      return line ? [fileTarget('Makefile', `target ${name}`, line)] : [];
    }
    // A script the command starts: the first of its first words that is a workspace file (`scripts/test` may have no
    // extension), or a bare file name (`node split.js`, run from its folder) that one graph file has.
    for (const word of words.slice(0, 3)) {
      if (!PATH_WORD(word)) continue;
      const path = normalize(word);
      if (files(path)) return [fileTarget(path, `runs ${path}`)];
      const same = word.includes('/') ? [] : named(word);
      if (same.length === 1) return [fileTarget(same[0].path, `runs ${same[0].path}`)];
    }
    return [];
  };
}
