/**
 * What a file can see, for name resolution: its resolved imports turned into lookups (module
 * aliases, imported names, wildcard files, names bound outside the workspace), its package's other
 * files, and its own bindings. Rules: docs/graph-model.md ("Resolving names").
 */
import type { ExtractedBinding, Language } from './extraction.ts';
import { indexBindings, type BindingIndex } from './receiver-types.ts';
import type { ResolvedImport } from './resolve.ts';

/** What a file can see: its resolved imports, turned into lookups. */
export interface FileScope {
  path: string;
  language: Language;
  /** Receiver alias → files (`os.path`, `pkg`, `mod` from `from x import mod`). */
  moduleAliases: Map<string, string[]>;
  /** Imported name → files that should define it. */
  importedNames: Map<string, string[]>;
  /** Local name of an aliased import → the name its module declares (`import { a as b }`: b → a). */
  importedOriginals: Map<string, string>;
  /** Files imported with a wildcard. */
  wildcardFiles: string[];
  /** Go and Java: other files of the same package directory. */
  packageFiles: string[];
  /** Local names an import binds to something outside the workspace (`from requests import get`, Go `http`). */
  externalNames: Set<string>;
  /** True when a wildcard import did not resolve: a bare name may come from anywhere. */
  unresolvedWildcard: boolean;
  /** The file's bindings (locals, params, fields); empty until `withBindings`. */
  bindings: BindingIndex;
}

/** Builds the lookups a file's calls and references resolve through. */
export function buildFileScope(path: string, language: Language, imports: readonly ResolvedImport[], sameDirFiles: readonly string[]): FileScope {
  const moduleAliases = new Map<string, string[]>();
  const importedNames = new Map<string, string[]>();
  const wildcardFiles: string[] = [];
  const externalNames = new Set<string>();
  const importedOriginals = new Map<string, string>();
  let unresolvedWildcard = false;
  const add = (m: Map<string, string[]>, k: string, v: readonly string[]): void => {
    const cur = m.get(k);
    if (cur) {
      for (const x of v) if (!cur.includes(x)) cur.push(x);
    } else m.set(k, [...v]);
  };
  for (const imp of imports) {
    if (imp.targets.length === 0) {
      if (imp.names.includes('*')) unresolvedWildcard = true;
      if (imp.unresolved === 'external') for (const n of externalBindings(imp, language)) externalNames.add(n);
      continue;
    }
    const subs = new Set(imp.submodules?.values() ?? []);
    const primary = imp.targets.filter((t) => !subs.has(t));
    const moduleTargets = primary.length ? primary : imp.targets;
    if (imp.alias) {
      // `import numpy as np`, `import * as ns from`, Go `f "fmt"`: the module under a local name.
      add(moduleAliases, imp.alias, moduleTargets);
      if (imp.names.every((n) => n === '*')) continue;
    } else if (imp.names.length === 0) {
      bindBareImport(imp.specifier, language, moduleTargets, (k, v) => add(moduleAliases, k, v), (k, v) => add(importedNames, k, v));
    }
    for (const raw of imp.names) {
      const star = /^\*\s+as\s+([\w$]+)$/.exec(raw);
      if (star) {
        add(moduleAliases, star[1], moduleTargets);
        continue;
      }
      if (raw === '*') {
        for (const t of moduleTargets) if (!wildcardFiles.includes(t)) wildcardFiles.push(t);
        continue;
      }
      const local = raw.replace(/^.*\s+as\s+/, '').trim();
      const orig = raw.replace(/\s+as\s+.*$/, '').trim();
      const sub = imp.submodules?.get(orig);
      if (sub) add(moduleAliases, local, [sub]);
      else {
        add(importedNames, local, moduleTargets);
        // An aliased import still lets a call be matched to the symbol under its declared name.
        if (orig !== local) {
          add(importedNames, orig, moduleTargets);
          importedOriginals.set(local, orig);
        }
      }
    }
  }
  const ext = language === 'go' ? '.go' : language === 'java' ? '.java' : null;
  const packageFiles = ext ? sameDirFiles.filter((f) => f !== path && f.endsWith(ext)) : [];
  return { path, language, moduleAliases, importedNames, importedOriginals, wildcardFiles, packageFiles, externalNames, unresolvedWildcard, bindings: new Map() };
}

/** The scope with the file's own bindings, for resolving its calls. */
export function withBindings(scope: FileScope, bindings: readonly ExtractedBinding[] | undefined): FileScope {
  return bindings?.length ? { ...scope, bindings: indexBindings(bindings) } : scope;
}

/** The name a Go import path binds: its last segment, without a major-version suffix (`chi/v5`, `yaml.v3`, `go-isatty`). */
function goPackageName(specifier: string): string {
  const segs = specifier.split('/').filter(Boolean);
  let last = segs.pop() ?? '';
  if (/^v\d+$/.test(last) && segs.length) last = segs.pop()!;
  return last.replace(/\.v\d+$/, '').replace(/^go-/, '').replace(/[-.]go$/, '').replace(/\W/g, '_');
}

/** Local names an unresolved (external) import binds. */
function externalBindings(imp: ResolvedImport, language: Language): string[] {
  if (imp.alias) return [imp.alias];
  if (language === 'go' && imp.names.length === 0) return [goPackageName(imp.specifier)];
  if (imp.names.length === 0) {
    const segs = imp.specifier.split(/[./:\\]+/).filter(Boolean);
    // `import os.path` binds `os`; Go, Java and Rust bind the last segment.
    const name = language === 'python' ? segs[0] : segs[segs.length - 1];
    return name ? [name] : [];
  }
  return imp.names.filter((n) => n !== '*' && !n.startsWith('* ')).map((n) => n.replace(/^.*\s+as\s+/, '').trim());
}

/** What a bare import (no names) binds in the importing file, per language. */
function bindBareImport(
  specifier: string,
  language: Language,
  targets: readonly string[],
  alias: (name: string, files: readonly string[]) => void,
  name: (name: string, files: readonly string[]) => void,
): void {
  const last = specifier.split(/[./:\\]+/).filter(Boolean).pop();
  switch (language) {
    case 'python':
      alias(specifier, targets); // `import a.b` is used as `a.b.f()`
      break;
    case 'go':
      alias(goPackageName(specifier), targets); // the package name is the last path segment by convention
      break;
    case 'java':
    case 'rust':
      // `import a.b.C` / `use crate::a::Foo` bind a type; `use crate::a::m` binds a module.
      if (last && /^[A-Z]/.test(last)) name(last, targets);
      else if (last) alias(last, targets);
      break;
    default:
      break; // a JS/TS side-effect import binds nothing
  }
}
