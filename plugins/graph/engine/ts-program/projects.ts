/**
 * The TypeScript programs of a workspace, inside the checker worker: one LanguageService per
 * tsconfig.json / jsconfig.json that owns workspace files (parsed with `extends`, `paths` and project
 * references followed), and one inferred JS-friendly service for files no config includes. Scripts are
 * versioned by the engine's content hash, so a re-check after an edit re-parses only changed files.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';
import { findConfigFiles } from './fingerprint.ts';
import type { CheckInputFile } from './protocol.ts';

/** Options for workspaces (or parts) without a config: plain JS and TS, checked leniently. */
const INFERRED_OPTIONS: ts.CompilerOptions = {
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

interface Project {
  config: string | null;
  service: ts.LanguageService;
}

/** A file's text as read for a script version, with the sha1 of its bytes. */
interface ScriptText {
  version: string;
  text: string;
  hash: string;
}

const toPosix = (p: string): string => (sep === '/' ? p : p.split(sep).join('/'));

/** The language services of one workspace and which one owns each workspace file. */
export class ProjectSet {
  private readonly registry = ts.createDocumentRegistry();
  private readonly versions = new Map<string, string>();
  private readonly texts = new Map<string, ScriptText>();
  private projects: Project[] = [];
  private readonly owner = new Map<string, Project>();
  private fingerprint = '';
  private fileSetKey = '';

  constructor(readonly root: string) {}

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

  /** Syncs script versions; rebuilds the services when the config fingerprint or the file set changed. */
  update(files: readonly CheckInputFile[], fingerprint: string): void {
    const fileSetKey = createHash('sha1').update(files.map((f) => f.path).join('\n')).digest('hex');
    this.versions.clear();
    for (const f of files) this.versions.set(this.abs(f.path), f.hash);
    if (fingerprint === this.fingerprint && fileSetKey === this.fileSetKey && this.projects.length > 0) return;
    this.fingerprint = fingerprint;
    this.fileSetKey = fileSetKey;
    for (const p of this.projects) p.service.dispose();
    this.projects = [];
    this.owner.clear();
    this.build(files);
  }

  /** The service owning a workspace file, or undefined. */
  serviceOf(rel: string): ts.LanguageService | undefined {
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

  private build(files: readonly CheckInputFile[]): void {
    const wanted = new Set(files.map((f) => f.path));
    const parsed: { config: string; cmd: ts.ParsedCommandLine }[] = [];
    for (const rel of findConfigFiles(this.root)) {
      const cmd = ts.getParsedCommandLineOfConfigFile(this.abs(rel), { noEmit: true }, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
      if (cmd) parsed.push({ config: rel, cmd });
    }
    // Nearest config first: a file belongs to the deepest config directory that includes it.
    parsed.sort((a, b) => b.config.split('/').length - a.config.split('/').length);
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
    const rest = files.map((f) => f.path).filter((p) => !assigned.has(p));
    const rootConfig = parsed.find((p) => !p.config.includes('/'));
    if (rootConfig && rest.length > 0) claimed.set(rootConfig.config, [...(claimed.get(rootConfig.config) ?? []), ...rest]);
    for (const { config, cmd } of parsed) {
      const mine = claimed.get(config);
      if (!mine) continue;
      const options = { ...cmd.options, noEmit: true, skipLibCheck: true, allowJs: cmd.options.allowJs ?? true };
      const rootNames = cmd.fileNames.map(toPosix);
      if (config === rootConfig?.config) rootNames.push(...rest.map((p) => this.abs(p)));
      const project: Project = { config, service: this.service(options, rootNames, dirname(this.abs(config)), cmd.projectReferences) };
      this.projects.push(project);
      for (const rel of mine) this.owner.set(rel, project);
    }
    if (!rootConfig && rest.length > 0) {
      const project: Project = { config: null, service: this.service(INFERRED_OPTIONS, rest.map((p) => this.abs(p)), this.root, undefined) };
      this.projects.push(project);
      for (const rel of rest) this.owner.set(rel, project);
    }
  }

  private service(options: ts.CompilerOptions, rootNames: string[], cwd: string, references: readonly ts.ProjectReference[] | undefined): ts.LanguageService {
    // `useSourceOfProjectReferenceRedirect` is honoured by the service but not in the public host type.
    const host: ts.LanguageServiceHost & { useSourceOfProjectReferenceRedirect(): boolean } = {
      getCompilationSettings: () => options,
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
    return ts.createLanguageService(host, this.registry);
  }

  /** Reads a script; workspace files are hashed and cached per version. */
  private readScript(fileName: string): string | undefined {
    const version = this.versions.get(fileName);
    if (version === undefined) return ts.sys.readFile(fileName);
    const cached = this.texts.get(fileName);
    if (cached && cached.version === version) return cached.text;
    let bytes: Buffer;
    try {
      bytes = readFileSync(fileName);
    } catch {
      return undefined;
    }
    const hash = createHash('sha1').update(bytes).digest('hex');
    let text = bytes.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    this.texts.set(fileName, { version, text, hash });
    return text;
  }
}
