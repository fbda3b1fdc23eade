/**
 * Imports a configuration file in any project, whatever its package.json `type` says: the file (and
 * the relative files it imports) is bundled by esbuild into one ES module written beside it (so its
 * package imports resolve from the config's folder), imported, then deleted. `.ts`, `.mts`, `.js`
 * and `.mjs` configs, ESM or CommonJS syntax, load the same way; each load is a fresh module, so a
 * reload sees edits. Every failure becomes a CONFIG_LOAD error whose message and hint name the cause:
 * a syntax error (file:line:column), a relative import that does not exist, a package that is not
 * installed, or code that threw while the config evaluated.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ErrorCodes, M1ndError } from './errors.ts';

/** m1nd's own sources and build: imported as they are (one copy of the core), never bundled into a config. */
const M1ND_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OWN_DIRS = ['core', 'plugins', 'bundles', 'dist'].map((d) => path.join(M1ND_ROOT, d) + path.sep);
let sequence = 0;
// Spelled in pieces: the package build (scripts/bundle.mjs) rewrites every literal import-meta-url in the sources.
const IMPORT_META_URL = ['import', 'meta', 'url'].join('.');

interface EsbuildMessage {
  text: string;
  location?: { file: string; line: number; column: number; lineText?: string } | null;
}

function where(m: EsbuildMessage, baseDir: string): string {
  const l = m.location;
  // Line 1 of each loaded file is the prelude defining __dirname and friends: lines shift by one.
  return l ? `${path.resolve(baseDir, l.file)}:${Math.max(1, l.line - 1)}:${l.column + 1}` : '';
}

/** Turns esbuild's build errors into one CONFIG_LOAD error naming the cause and the place. */
function buildError(file: string, errors: EsbuildMessage[]): M1ndError {
  const first = errors[0] ?? { text: 'unknown build error' };
  const at = where(first, path.dirname(file));
  const unresolved = /^Could not resolve "([^"]+)"/.exec(first.text);
  if (unresolved) {
    return new M1ndError(ErrorCodes.CONFIG_LOAD, `${file}: imports "${unresolved[1]}", which does not exist${at ? ` (${at})` : ''}`, {
      hint: `fix the import path at ${at || file}, or create the file it names`,
      data: { file, cause: 'import-not-found', specifier: unresolved[1], at },
    });
  }
  const line = first.location?.lineText ? `\n    ${first.location.lineText.trim()}` : '';
  return new M1ndError(ErrorCodes.CONFIG_LOAD, `${file}: syntax error at ${at || file}: ${first.text}${line}`, {
    hint: `fix the syntax at ${at || file} (${errors.length} error${errors.length === 1 ? '' : 's'} in all)`,
    data: { file, cause: 'syntax', at, errors: errors.slice(0, 5).map((e) => ({ text: e.text, at: where(e, path.dirname(file)) })) },
  });
}

/** Turns an error thrown while importing the bundled module into a CONFIG_LOAD error with its cause. */
function importError(file: string, error: unknown): M1ndError {
  const e = error as NodeJS.ErrnoException;
  const message = e?.message ?? String(error);
  const pkg = /Cannot find (?:package|module) '([^']+)'/.exec(message);
  if (e?.code === 'ERR_MODULE_NOT_FOUND' && pkg) {
    const name = pkg[1];
    return new M1ndError(ErrorCodes.CONFIG_LOAD, `${file}: imports package "${name}", which is not installed where the config is`, {
      hint: `npm install ${name.startsWith('.') || path.isAbsolute(name) ? '(the file it names)' : name} in ${path.dirname(file)}, or remove the import`,
      data: { file, cause: 'package-not-found', specifier: name },
    });
  }
  if (e?.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED' || e?.code === 'ERR_UNSUPPORTED_DIR_IMPORT') {
    return new M1ndError(ErrorCodes.CONFIG_LOAD, `${file}: an import cannot be resolved: ${message.split('\n')[0]}`, {
      hint: 'import the package by a path it exports (see its package.json "exports")',
      data: { file, cause: 'package-path', code: e.code },
    });
  }
  return new M1ndError(ErrorCodes.CONFIG_LOAD, `${file}: threw while evaluating: ${message.split('\n')[0]}`, {
    hint: `fix the code of ${path.basename(file)} that throws (the config module runs top to bottom on every load)`,
    data: { file, cause: 'threw', name: e?.name },
  });
}

/** The files each config's last load read (itself and its relative imports): dev mode watches them. */
const lastInputs = new Map<string, string[]>();

/** The files bundled into `file`'s last load (the file itself when it never loaded). */
export function configInputs(file: string): string[] {
  return lastInputs.get(file) ?? [file];
}

/**
 * Bundles `file` with esbuild and imports the result: the config's module namespace. Package
 * imports and m1nd's own files stay external; relative imports are bundled.
 */
export async function importConfigFile(file: string): Promise<Record<string, unknown>> {
  const { build } = await import('esbuild');
  const dir = path.dirname(file);
  let code: string;
  try {
    const result = await build({
      entryPoints: [file],
      absWorkingDir: dir,
      bundle: true,
      write: false,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'silent',
      metafile: true,
      // CommonJS configs call require(): resolved from the config's folder.
      banner: { js: `import { createRequire as __m1ndCreateRequire } from 'node:module';\nconst require = __m1ndCreateRequire(${JSON.stringify(pathToFileURL(file).href)});` },
      // Each bundled file keeps its own location: __dirname, __filename and import.meta.url name it.
      define: { __dirname: '__m1nd_config_dirname', __filename: '__m1nd_config_filename', [IMPORT_META_URL]: '__m1nd_config_url' },
      plugins: [
        {
          name: 'm1nd-config',
          setup(b) {
            // m1nd's own sources (a config in this repository, or one importing m1nd by path) stay one copy.
            b.onResolve({ filter: /^[./]/ }, (args) => {
              const abs = path.resolve(args.resolveDir, args.path);
              if (args.kind !== 'entry-point' && OWN_DIRS.some((d) => abs.startsWith(d)) && fs.existsSync(abs)) {
                return { path: pathToFileURL(abs).href, external: true };
              }
              return undefined;
            });
            b.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
              const text = await fs.promises.readFile(args.path, 'utf8');
              const loader = /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js';
              const prelude = `const __m1nd_config_dirname = ${JSON.stringify(path.dirname(args.path))}; const __m1nd_config_filename = ${JSON.stringify(args.path)}; const __m1nd_config_url = ${JSON.stringify(pathToFileURL(args.path).href)};`;
              return { contents: `${prelude}\n${text}`, loader };
            });
          },
        },
      ],
    });
    code = result.outputFiles[0].text;
    lastInputs.set(file, Object.keys(result.metafile?.inputs ?? {}).map((f) => path.resolve(dir, f)));
  } catch (error) {
    const errors = (error as { errors?: EsbuildMessage[] }).errors;
    if (errors?.length) throw buildError(file, errors);
    throw new M1ndError(ErrorCodes.CONFIG_LOAD, `${file}: could not be read: ${(error as Error).message}`, { hint: 'check the file exists and is readable', data: { file, cause: 'read' } });
  }
  // Written beside the config so that its package imports resolve from the config's node_modules;
  // a read-only folder falls back to the temp folder (then only m1nd's own files and Node built-ins resolve).
  const name = `.${path.basename(file)}.${process.pid}-${Date.now()}-${++sequence}.mjs`;
  let out = path.join(dir, name);
  let privateDir: string | null = null;
  try {
    fs.writeFileSync(out, code, { flag: 'wx' });
  } catch {
    // A directory of its own (mkdtemp: 0700, an unpredictable name): code m1nd is about to import
    // never sits at a name in the shared temp folder that another local user could have claimed.
    privateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-config-'));
    out = path.join(privateDir, name);
    fs.writeFileSync(out, code, { flag: 'wx' });
  }
  try {
    return (await import(pathToFileURL(out).href)) as Record<string, unknown>;
  } catch (error) {
    throw importError(file, error);
  } finally {
    fs.rmSync(privateDir ?? out, { recursive: true, force: true });
  }
}
