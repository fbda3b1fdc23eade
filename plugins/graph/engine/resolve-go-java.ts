/** Go import resolution through go.mod module paths, Java through a class path under any source root. */
import { joinRel, MAX_PACKAGE_TARGETS, type PathIndex, type ResolvedImport, type ResolverConfig } from './resolve-base.ts';

// ---------------------------------------------------------------------------------------------
// Go

export function resolveGo(base: ResolvedImport, files: PathIndex, config: ResolverConfig): ResolvedImport {
  const spec = base.specifier;
  for (const mod of config.goModules) {
    if (spec !== mod.module && !spec.startsWith(`${mod.module}/`)) continue;
    const dir = joinRel(mod.dir, spec.slice(mod.module.length).replace(/^\//, ''));
    const targets = files
      .filesInDir(dir)
      .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'))
      .slice(0, MAX_PACKAGE_TARGETS);
    return targets.length ? { ...base, targets } : { ...base, unresolved: 'not_found' };
  }
  return { ...base, unresolved: 'external' };
}

// ---------------------------------------------------------------------------------------------
// Java

export function resolveJava(base: ResolvedImport, files: PathIndex): ResolvedImport {
  const parts = base.specifier.replace(/^static\s+/, '').split('.').filter((p) => p !== '*');
  const wildcard = base.specifier.endsWith('.*') || base.names.includes('*');
  const classFile = findJavaClass(parts, files);
  if (classFile && (!wildcard || /^[A-Z]/.test(parts[parts.length - 1] ?? ''))) return { ...base, targets: [classFile] };
  if (wildcard) {
    const pkg = parts.join('/');
    // The package directory under any source root: a directory whose path ends with the package path.
    for (const dir of files.directories()) {
      if (dir !== pkg && !dir.endsWith(`/${pkg}`)) continue;
      const targets = files.filesInDir(dir).filter((f) => f.endsWith('.java')).slice(0, MAX_PACKAGE_TARGETS);
      if (targets.length) return { ...base, targets };
    }
    return { ...base, unresolved: 'external' };
  }
  return { ...base, unresolved: 'external' };
}

/** `a.b.C` (or a static member `a.b.C.m`) → the file of the longest class path, under any source root. */
function findJavaClass(parts: string[], files: PathIndex): string | null {
  for (let k = parts.length; k >= 1; k--) {
    const suffix = `${parts.slice(0, k).join('/')}.java`;
    const hit = files.filesNamed(`${parts[k - 1]}.java`).find((f) => f === suffix || f.endsWith(`/${suffix}`));
    if (hit) return hit;
  }
  return null;
}
