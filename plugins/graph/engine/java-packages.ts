/**
 * Java package membership for name scopes: a package spans every source root
 * (`src/main/java/a/b` and `src/test/java/a/b`), so its files are gathered across directories.
 */
import type { PathIndex } from './resolve.ts';

/** Files of each Java package, cached until the file set changes (the builder clears it every relink). */
export class JavaPackages {
  private readonly byPackage = new Map<string, string[]>();

  /** Forgets every cached package (the file set may have changed). */
  clear(): void {
    this.byPackage.clear();
  }

  /** Files of the package whose directory is `dir` (just that directory outside a `java/` root). */
  filesOf(dir: string, paths: PathIndex): readonly string[] {
    const cut = `/${dir}`.lastIndexOf('/java/');
    if (cut < 0) return paths.filesInDir(dir);
    const pkg = `/${dir}`.slice(cut + 5);
    let files = this.byPackage.get(pkg);
    if (!files) {
      files = [];
      for (const d of paths.directories()) if (`/${d}`.endsWith(pkg) && `/${d}`.slice(0, -pkg.length).endsWith('/java')) files.push(...paths.filesInDir(d));
      this.byPackage.set(pkg, files);
    }
    return files;
  }
}
