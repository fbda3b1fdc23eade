import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PLUGINS = path.join(ROOT, 'plugins');

/** Every module specifier a file imports or re-exports (static and dynamic), from its syntax tree. */
function specifiers(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) found.push(node.arguments[0].text);
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) found.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(m?ts|m?js)$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/**
 * What a file inside plugins/<own>/ may import by a relative path: its own plugin's files, the
 * host's public API (core/index.ts, what `import 'm1nd'` gives a user plugin), and another plugin's
 * declared public entry (plugins/<other>/api.ts) — never another plugin's internal files.
 */
function violation(file: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const target = path.resolve(path.dirname(file), spec);
  const own = path.relative(PLUGINS, file).split(path.sep)[0];
  const rel = path.relative(ROOT, target).split(path.sep).join('/');
  if (rel.startsWith(`plugins/${own}/`)) return null;
  if (rel === 'core/index.ts') return null;
  if (/^plugins\/[^/]+\/api\.ts$/.test(rel)) return null;
  return rel;
}

describe('the plugin import boundary', () => {
  it('lets a plugin import only its own files, the public host API and other plugins\u2019 api.ts', () => {
    const crossings: string[] = [];
    for (const file of sourceFiles(PLUGINS)) {
      for (const spec of specifiers(file)) {
        const bad = violation(file, spec);
        if (bad) crossings.push(`${path.relative(ROOT, file)} imports ${bad}`);
      }
    }
    assert.deepEqual(crossings, []);
  });

  it('would catch a plugin reaching into another plugin\u2019s engine or the host\u2019s internals', () => {
    const file = path.join(PLUGINS, 'core/graph/impact.ts');
    assert.equal(violation(file, '../../graph/engine/graph.ts'), 'plugins/graph/engine/graph.ts');
    assert.equal(violation(file, '../../../core/dispatch.ts'), 'core/dispatch.ts');
    assert.equal(violation(file, '../../graph/api.ts'), null);
    assert.equal(violation(file, '../../../core/index.ts'), null);
    assert.equal(violation(file, '../shared.ts'), null);
  });

  it('parses every plugin file it checks (a file it cannot read is not silently skipped)', () => {
    const files = sourceFiles(PLUGINS);
    assert.ok(files.length > 100, `only ${files.length} plugin files found`);
    assert.ok(files.some((f) => specifiers(f).some((s) => s.endsWith('/graph/api.ts'))));
  });
});
