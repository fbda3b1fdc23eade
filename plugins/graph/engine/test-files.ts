/**
 * Test-file conventions per language: which files are tests, and which source file a test file is
 * named after (`test_foo.py` → `foo.py`, `foo.spec.ts` → `foo.ts`, `FooTest.java` → `Foo.java`).
 */
import { posix } from 'node:path';
import type { Language } from './extraction.ts';

const TEST_DIRS = /(^|\/)(tests?|__tests__|spec|specs|testing)\//;

/** True when path/name conventions of the language mark the file as a test. */
export function isTestFile(path: string, language: Language): boolean {
  const base = posix.basename(path);
  switch (language) {
    case 'python':
      return /^test_.*\.pyi?$/.test(base) || /_tests?\.pyi?$/.test(base) || base === 'conftest.py' || TEST_DIRS.test(path);
    case 'typescript':
    case 'tsx':
    case 'javascript':
      return /\.(test|spec)\.[cm]?[jt]sx?$/.test(base) || /(^|\/)__tests__\//.test(path) || TEST_DIRS.test(path);
    case 'go':
      return base.endsWith('_test.go');
    case 'rust':
      return /(^|\/)tests\//.test(path) || /_test\.rs$/.test(base);
    case 'java':
      return /^(Test\w+|\w+Tests?|\w+IT)\.java$/.test(base) || /(^|\/)src\/test\//.test(path);
    default:
      return false;
  }
}

/** Candidate basenames of the source file a test file is named after (empty when none). */
export function testedBasenames(path: string, language: Language): string[] {
  const base = posix.basename(path);
  let m: RegExpExecArray | null;
  switch (language) {
    case 'python':
      if ((m = /^test_(.+)\.pyi?$/.exec(base)) || (m = /^(.+)_tests?\.pyi?$/.exec(base))) return [`${m[1]}.py`];
      return [];
    case 'typescript':
    case 'tsx':
    case 'javascript':
      if ((m = /^(.+)\.(?:test|spec)\.([cm]?[jt]sx?)$/.exec(base))) {
        const stem = m[1];
        return ['.ts', '.tsx', '.js', '.jsx', '.mts', '.mjs', '.cjs'].map((e) => stem + e);
      }
      return [];
    case 'go':
      if ((m = /^(.+)_test\.go$/.exec(base))) return [`${m[1]}.go`];
      return [];
    case 'rust':
      if ((m = /^(.+)_test\.rs$/.exec(base))) return [`${m[1]}.rs`];
      return [];
    case 'java':
      if ((m = /^Test(\w+)\.java$/.exec(base)) || (m = /^(\w+?)(?:Tests?|IT)\.java$/.exec(base))) return [`${m[1]}.java`];
      return [];
    default:
      return [];
  }
}
