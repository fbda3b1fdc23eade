/**
 * What import resolution shares across languages: the resolver's view of the ingested files, its
 * settings, the resolved import's shape, path helpers and the per-ingest memo. resolve.ts dispatches
 * by language to resolve-python.ts, resolve-rust.ts and resolve-go-java.ts.
 */
import { posix } from 'node:path';
import type { OutputRoot } from './build-outputs.ts';

/** What the resolver may ask about the set of ingested files. */
export interface PathIndex {
  /** True when an ingested file has this exact path. */
  has(path: string): boolean;
  /** Ingested files directly in a directory ('' is the root). */
  filesInDir(dir: string): readonly string[];
  /** Ingested files with this basename. */
  filesNamed(basename: string): readonly string[];
  /** Every directory holding at least one ingested file. */
  directories(): Iterable<string>;
}

/** Workspace-level settings read from config files (tsconfig.json, go.mod). */
export interface ResolverConfig {
  /** tsconfig `compilerOptions.paths`, with the directory patterns are relative to. */
  tsPaths?: { baseDir: string; paths: Record<string, string[]> };
  /** tsconfig `compilerOptions.baseUrl` as a workspace-relative directory. */
  tsBaseUrl?: string;
  /** The root tsconfig's build output folder and its sources (see build-outputs.ts). */
  tsOutputs?: OutputRoot[];
  /** One entry per go.mod: its directory and module path. */
  goModules: { dir: string; module: string }[];
}

/** An import after resolution: the files it names, and submodules reached through its names. */
export interface ResolvedImport {
  specifier: string;
  line: number;
  names: string[];
  /** Workspace files the specifier resolves to (several for a Go package or Java wildcard). */
  targets: string[];
  /** Imported names that are themselves modules (`from pkg import mod`, `use a::{b}`): name → file. */
  submodules?: Map<string, string>;
  /** Local name bound to the whole module, if the source gives one. */
  alias?: string;
  /** True when only a prefix resolved (`import os.path` → os.py); the full module may appear later. */
  partial?: boolean;
  /** Why it did not resolve: a package outside the workspace, or a local-looking path that is missing. */
  unresolved?: 'external' | 'not_found';
}

/** Empty resolver settings. */
export function emptyResolverConfig(): ResolverConfig {
  return { goModules: [] };
}

/** A Go package or Java wildcard with more files than this resolves to its first files only. */
export const MAX_PACKAGE_TARGETS = 64;

/** The directory of a workspace-relative path ('' for the root). */
export function dirOf(path: string): string {
  const d = posix.dirname(path);
  return d === '.' ? '' : d;
}

/** Joins and normalizes workspace-relative parts ('' for the root). */
export function joinRel(...parts: string[]): string {
  const j = posix.normalize(posix.join(...parts));
  return j === '.' ? '' : j.replace(/\/$/, '');
}

/** True when a normalized relative path leaves the workspace. */
export function escapes(rel: string): boolean {
  return rel === '..' || rel.startsWith('../');
}

/** Per-ingest memo of directory facts (package roots, crate roots) shared by all resolutions. */
export class ResolveCache {
  readonly pythonRoot = new Map<string, string>();
  readonly crateRoot = new Map<string, string>();
  /** (package root, absolute module) → what it resolved to. */
  readonly pythonAbsolute = new Map<string, { modulePath: string | null; packageDir: string | null; partial: boolean }>();
  /** Top-level Python package name → directories it sits in (found from `__init__.py` files). */
  pythonPackages: Map<string, string[]> | null = null;
}
