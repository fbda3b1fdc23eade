/**
 * The TypeScript programs of a workspace, inside the checker worker: one LanguageService per
 * tsconfig.json / jsconfig.json that owns workspace files (parsed with `extends`, `paths` and project
 * references followed), and one inferred JS-friendly service for files no config includes. Scripts are
 * versioned by the engine's content hash (the sha1 of the bytes, which a warm-up computes the same
 * way), so a re-check after an edit re-parses only changed files, and services rebuilt for a new file
 * set or new configs take the unchanged parsed and bound files from the shared document registry.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import fg from 'fast-glob';
import ignore from 'ignore';
import type TS from 'typescript';
import type { OutputRoot } from '../build-outputs.ts';
import ts from './compiler.ts';
import { parseConfigs, type ParsedConfig } from './configs.ts';
import { JSDOC_PARSING, sharedDocumentRegistry } from './document-registry.ts';
import { configOutputs, outputAwareResolver, toPosix } from './output-resolution.ts';
import type { CheckInputFile } from './protocol.ts';

/** Options for workspaces (or parts) without a config: plain JS and TS, checked leniently. */
const INFERRED_OPTIONS: TS.CompilerOptions = {
  allowJs: true,
  checkJs: false,
  noEmit: true,
  target: ts.ScriptTarget.ESNext,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  jsx: ts.JsxEmit.Preserve,
  skipLibCheck: true,
  allowImportingTsExtensions: true,
  resolveJsonModule: true,
};

/** TS/JS files a warm-up takes besides the configs' own (the engine's languages). */
const SCRIPT_GLOB = ['**/*.{ts,mts,cts,tsx,js,mjs,cjs,jsx}'];
/** Directories the engine never ingests (see walk.ts), and minified bundles. */
const WARM_IGNORE = ['**/node_modules/**', '**/.*/**', '**/{vendor,third_party,third-party,dist,build}/**', '**/*.min.{js,mjs,cjs}', '**/*[-.]bundle.js'];
/** The engine's default size limit: larger files are not ingested. */
const MAX_WARM_BYTES = 1024 * 1024;


interface Project {
  config: string | null;
  service: TS.LanguageService;
}

/** A file's text as read for a script version, with the sha1 of its bytes. */
interface ScriptText {
  version: string;
  text: string;
  hash: string;
}

/** Compiler options as a comparable string, without the config file's own path. */
const optionsKey = (options: TS.CompilerOptions): string => JSON.stringify(options, (k, v: unknown) => (k === 'configFilePath' ? undefined : v));

const readIfExists = (file: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};


/** The language services of one workspace and which one owns each workspace file. */
export class ProjectSet {
  private readonly versions = new Map<string, string>();
  private readonly texts = new Map<string, ScriptText>();
  private projects: Project[] = [];
  /** Services replaced by a rebuild, disposed once the new ones hold their files (see `releaseRetired`). */
  private retired: Project[] = [];
  private readonly owner = new Map<string, Project>();
  private fingerprint = '';
  /** Configs a warm-up parsed, for the one rebuild that follows it (an include glob's matches go stale). */
  private warmConfigs: { fingerprint: string; parsed: ParsedConfig[] } | null = null;
  /** The workspace's build outputs and their sources, from the configs of the last build. */
  private outputs: OutputRoot[] = [];
  /** Module resolution caches of the services that read missing outputs as sources: cleared on every update. */
  private resolutionCaches: TS.ModuleResolutionCache[] = [];

  /** `registry`: where parsed files are kept and shared (by default a registry of this set's own). */
  constructor(
    readonly root: string,
    private readonly registry: TS.DocumentRegistry = sharedDocumentRegistry(),
  ) {}

  /** Disposes every service (their files leave the registry unless another service holds them). */
  dispose(): void {
    for (const p of [...this.projects, ...this.retired]) p.service.dispose();
    this.projects = [];
    this.retired = [];
    this.owner.clear();
  }

  /** Absolute path of a workspace file. */
  abs(rel: string): string {
    return toPosix(join(this.root, rel));
  }

  /** Workspace-relative path of an absolute file name, or null outside the workspace or under node_modules. */
  rel(fileName: string): string | null {
    const r = toPosix(relative(this.root, fileName));
    if (r.startsWith('..') || r.includes('node_modules/')) return null;
    return this.versions.has(this.abs(r)) ? r : null;
  }

  /**
   * Syncs script versions; rebuilds the services when the config fingerprint changed or a file is
   * not yet a root of any program (a new file). Files no longer listed stay roots until a rebuild:
   * removed ones are simply missing from their program.
   */
  update(files: readonly CheckInputFile[], fingerprint: string): void {
    this.versions.clear();
    for (const f of files) this.versions.set(this.abs(f.path), f.hash);
    for (const c of this.resolutionCaches) c.clear();
    if (fingerprint === this.fingerprint && this.projects.length > 0 && files.every((f) => this.owner.has(f.path))) return;
    this.fingerprint = fingerprint;
    // Disposing now would drop every file from the registry and re-parse them all.
    this.retired.push(...this.projects);
    this.projects = [];
    this.owner.clear();
    this.build(files.map((f) => f.path), fingerprint);
  }

  /** Disposes the services a rebuild replaced; call once the new services have built their programs. */
  releaseRetired(): void {
    for (const p of this.retired) p.service.dispose();
    this.retired = [];
  }

  /**
   * Builds every program from the workspace's files on disk (those the configs include, and TS/JS
   * files outside the directories the engine never ingests), versioned by their sha1: the engine's
   * check that follows sends the same hashes for the files it ingested, so it finds them roots of
   * these programs, parsed and bound, and the services are kept.
   */
  warm(fingerprint: string): void {
    const parsed = parseConfigs(this.root);
    // The root .gitignore too: generated bundles the engine skips should not be parsed here.
    const ignored = ignore().add(readIfExists(join(this.root, '.gitignore')));
    const paths = new Set(ignored.filter(fg.sync(SCRIPT_GLOB, { cwd: this.root, ignore: WARM_IGNORE, dot: false, onlyFiles: true, suppressErrors: true, followSymbolicLinks: false })));
    for (const { cmd } of parsed) {
      for (const fileName of cmd.fileNames) {
        const rel = toPosix(relative(this.root, fileName));
        if (!rel.startsWith('..') && !rel.includes('node_modules/')) paths.add(rel);
      }
    }
    const files: CheckInputFile[] = [];
    for (const rel of [...paths].sort()) {
      const read = this.readText(this.abs(rel), undefined, MAX_WARM_BYTES);
      if (read) files.push({ path: rel, hash: read.hash });
    }
    this.warmConfigs = { fingerprint, parsed };
    this.update(files, fingerprint);
    for (const p of this.projects) p.service.getProgram();
    this.releaseRetired();
  }

  /** The service owning a workspace file, or undefined. */
  serviceOf(rel: string): TS.LanguageService | undefined {
    return this.owner.get(rel)?.service;
  }

  /** Number of programs. */
  get size(): number {
    return this.projects.length;
  }

  /** The sha1 of the bytes last read for a workspace file (what its program was built from). */
  hashRead(rel: string): string | undefined {
    return this.texts.get(this.abs(rel))?.hash;
  }

  private build(files: readonly string[], fingerprint: string): void {
    const wanted = new Set(files);
    // Nearest config first: a file belongs to the deepest config directory that includes it.
    const parsed = this.warmConfigs?.fingerprint === fingerprint ? this.warmConfigs.parsed : parseConfigs(this.root);
    this.warmConfigs = null;
    this.outputs = configOutputs(this.root, parsed);
    this.resolutionCaches = [];
    const claimed = new Map<string, string[]>();
    const assigned = new Map<string, string>();
    for (const { config, cmd } of parsed) {
      for (const fileName of cmd.fileNames) {
        const rel = toPosix(relative(this.root, fileName));
        if (!wanted.has(rel) || assigned.has(rel)) continue;
        assigned.set(rel, config);
        let list = claimed.get(config);
        if (!list) claimed.set(config, (list = []));
        list.push(rel);
      }
    }
    // Files no config includes (build scripts, stray JS) join the root config's program when there
    // is one: same libs and settings, and what they import is checked once, not twice.
    const rest = files.filter((p) => !assigned.has(p));
    const rootConfig = parsed.find((p) => !p.config.includes('/'));
    if (rootConfig && rest.length > 0) claimed.set(rootConfig.config, [...(claimed.get(rootConfig.config) ?? []), ...rest]);
    // Configs with the same options and no project references (`examples/*/tsconfig.json` extending
    // one base) resolve every name alike: they share one program, which is built, and holds the
    // files they all import, once.
    const shared = new Map<string, { project: Project; rootNames: string[] }>();
    for (const { config, cmd, options: configOptions } of parsed) {
      const mine = claimed.get(config);
      if (!mine) continue;
      const options = { ...configOptions, noEmit: true, skipLibCheck: true, allowJs: configOptions.allowJs ?? true };
      const rootNames = cmd.fileNames.map(toPosix);
      if (config === rootConfig?.config) rootNames.push(...rest.map((p) => this.abs(p)));
      const key = cmd.projectReferences?.length ? null : optionsKey(options);
      const same = key === null ? undefined : shared.get(key);
      if (same) {
        same.rootNames.push(...rootNames);
        for (const rel of mine) this.owner.set(rel, same.project);
        continue;
      }
      const project: Project = { config, service: this.service(options, rootNames, dirname(this.abs(config)), cmd.projectReferences) };
      if (key !== null) shared.set(key, { project, rootNames });
      this.projects.push(project);
      for (const rel of mine) this.owner.set(rel, project);
    }
    if (!rootConfig && rest.length > 0) {
      const project: Project = { config: null, service: this.service(INFERRED_OPTIONS, rest.map((p) => this.abs(p)), this.root, undefined) };
      this.projects.push(project);
      for (const rel of rest) this.owner.set(rel, project);
    }
  }

  private service(options: TS.CompilerOptions, rootNames: string[], cwd: string, references: readonly TS.ProjectReference[] | undefined): TS.LanguageService {
    // `useSourceOfProjectReferenceRedirect` is honoured by the service but not in the public host type.
    const host: TS.LanguageServiceHost & { useSourceOfProjectReferenceRedirect(): boolean } = {
      getCompilationSettings: () => options,
      jsDocParsingMode: JSDOC_PARSING,
      getScriptFileNames: () => rootNames,
      getProjectReferences: () => references,
      // Referenced projects are read from their sources, not from (possibly stale or missing) .d.ts outputs.
      useSourceOfProjectReferenceRedirect: () => true,
      getScriptVersion: (f) => this.versions.get(toPosix(f)) ?? '0',
      getScriptSnapshot: (f) => {
        const text = this.readScript(toPosix(f));
        return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
      },
      getCurrentDirectory: () => cwd,
      getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
      fileExists: ts.sys.fileExists,
      readFile: ts.sys.readFile,
      readDirectory: ts.sys.readDirectory,
      directoryExists: ts.sys.directoryExists,
      getDirectories: ts.sys.getDirectories,
      realpath: ts.sys.realpath,
    };
    // A project with references already reads their outputs from sources (above), through a
    // resolution this host function would replace.
    if (this.outputs.length > 0 && !references?.length) {
      const cache = ts.createModuleResolutionCache(cwd, (f) => f, options);
      this.resolutionCaches.push(cache);
      host.resolveModuleNameLiterals = outputAwareResolver(this.root, this.outputs, cache);
    }
    return ts.createLanguageService(host, this.registry);
  }

  /** Reads a script; workspace files are hashed and cached per version. */
  private readScript(fileName: string): string | undefined {
    const version = this.versions.get(fileName);
    if (version === undefined) return ts.sys.readFile(fileName);
    const cached = this.texts.get(fileName);
    if (cached && cached.version === version) return cached.text;
    return this.readText(fileName, version)?.text;
  }

  /** Reads and hashes a workspace file, cached under `version` (by default its own hash); undefined past `maxBytes`. */
  private readText(fileName: string, version?: string, maxBytes = Infinity): ScriptText | undefined {
    let bytes: Buffer;
    try {
      bytes = readFileSync(fileName);
    } catch {
      return undefined;
    }
    if (bytes.length > maxBytes) return undefined;
    const hash = createHash('sha1').update(bytes).digest('hex');
    let text = bytes.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const read = { version: version ?? hash, text, hash };
    this.texts.set(fileName, read);
    return read;
  }
}
