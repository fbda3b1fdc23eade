// Node module hooks (registered by core/discovery.ts). A plugin entry imported with `?m1nd-gen=N`
// and every project file below it resolve to `<file>?m1nd-v=<version>`, where the version hashes
// the file's content and the versions of the project files it imports (an import cycle shares one
// version). An edited file therefore gets a new URL, and so does each file that imports it, up to
// the entry; every unchanged module keeps its URL and is re-used from the module cache. Node never
// frees an evaluated module, so re-importing everything per generation (the old behaviour) leaked
// the whole plugin tree on each hot reload. m1nd's own core/ and node_modules stay shared as before.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let coreDir = '';
/** Content hash and project imports per file, valid while its size and mtime stay the same. */
const files = new Map();
/** Versions computed for the generation being imported (`epoch`, the entry's m1nd-gen tag). */
let epoch = '';
let versions = new Map();

export async function initialize(data) {
  coreDir = data?.coreDir ?? '';
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  const entry = /[?&]m1nd-gen=([^&#]+)/.exec(specifier);
  const fromProject = context.parentURL && /[?&]m1nd-(gen|v)=/.test(context.parentURL);
  if (!entry && !fromProject) return result;
  if (!result.url.startsWith('file:') || !isProjectUrl(result.url)) return result;
  if (entry) {
    // A new generation: files may have changed since the last one, so versions are recomputed.
    if (entry[1] !== epoch) {
      epoch = entry[1];
      versions = new Map();
    }
  } else if (result.url.includes('?')) {
    return result;
  }
  const bare = result.url.replace(/[?#].*$/, '');
  return { ...result, url: `${bare}?m1nd-v=${versionOf(fileURLToPath(bare))}` };
}

function isProjectUrl(url) {
  return !url.includes('/node_modules/') && !(coreDir && url.startsWith(coreDir));
}

/** The file's content hash and the project files its static and literal dynamic imports name. */
function fileInfo(file) {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return undefined;
  }
  const stamp = `${stat.size}:${stat.mtimeMs}`;
  const known = files.get(file);
  if (known?.stamp === stamp) return known;
  const text = readFileSync(file, 'utf8');
  const deps = [];
  const importRe = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"\n]+)['"]/g;
  for (let m; (m = importRe.exec(text)); ) {
    const dep = locate(path.dirname(file), m[1]);
    if (dep && dep !== file && !deps.includes(dep)) deps.push(dep);
  }
  const info = { stamp, hash: createHash('sha1').update(text).digest('hex'), deps };
  files.set(file, info);
  return info;
}

/** The project file a relative or absolute specifier names (tsx also maps `.js` to `.ts`), if any. */
function locate(dir, specifier) {
  if (!specifier.startsWith('.') && !path.isAbsolute(specifier)) return undefined; // packages: shared
  const base = path.resolve(dir, specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), `${base}.ts`, `${base}.js`, path.join(base, 'index.ts'), path.join(base, 'index.js')];
  for (const c of candidates) {
    if (!isProjectUrl(`file://${c}`)) return undefined;
    try {
      if (statSync(c).isFile()) return c;
    } catch {
      // next candidate
    }
  }
  return undefined;
}

/** The file's version: its strongly connected component's contents and its imports' versions (Tarjan). */
function versionOf(root) {
  const cached = versions.get(root);
  if (cached) return cached;
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const visit = (file) => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    const deps = fileInfo(file)?.deps ?? [];
    for (const dep of deps) {
      if (versions.has(dep)) continue;
      if (!index.has(dep)) {
        visit(dep);
        low.set(file, Math.min(low.get(file), low.get(dep)));
      } else if (onStack.has(dep)) {
        low.set(file, Math.min(low.get(file), index.get(dep)));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const members = [];
    let m;
    do {
      m = stack.pop();
      onStack.delete(m);
      members.push(m);
    } while (m !== file);
    members.sort();
    const h = createHash('sha1');
    const inside = new Set(members);
    for (const member of members) {
      h.update(member).update(fileInfo(member)?.hash ?? 'missing');
      for (const dep of fileInfo(member)?.deps ?? []) if (!inside.has(dep)) h.update(versions.get(dep) ?? 'missing');
    }
    const version = h.digest('hex').slice(0, 16);
    for (const member of members) versions.set(member, version);
  };
  visit(root);
  return versions.get(root);
}
