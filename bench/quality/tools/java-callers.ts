/**
 * Ground truth for Java callers: javac's attribution through the Compiler Tree API (JavaCallers.java,
 * run as a single-file program by the JDK on PATH, 17+). Annotation-only dependencies (JSpecify) get
 * source stubs so that they do not turn into compile errors; other missing dependencies stay errors
 * that javac recovers from, and their count is printed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TruthDeclaration } from '../truth-format.ts';

const PROGRAM = path.join(path.dirname(fileURLToPath(import.meta.url)), 'java-callers', 'JavaCallers.java');

const STUBS: Record<string, string> = {
  'org/jspecify/annotations/Nullable.java': 'package org.jspecify.annotations;\nimport java.lang.annotation.*;\n@Target({ElementType.TYPE_USE}) public @interface Nullable {}\n',
  'org/jspecify/annotations/NonNull.java': 'package org.jspecify.annotations;\nimport java.lang.annotation.*;\n@Target({ElementType.TYPE_USE}) public @interface NonNull {}\n',
  'org/jspecify/annotations/NullMarked.java': 'package org.jspecify.annotations;\npublic @interface NullMarked {}\n',
  'org/jspecify/annotations/NullUnmarked.java': 'package org.jspecify.annotations;\npublic @interface NullUnmarked {}\n',
};

/** Every method with a body under `sourceDir` (relative to root), with its callers. */
export function javaCallers(root: string, sourceDir: string): TruthDeclaration[] {
  const stubs = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-java-stubs-'));
  try {
    for (const [file, text] of Object.entries(STUBS)) {
      fs.mkdirSync(path.dirname(path.join(stubs, file)), { recursive: true });
      fs.writeFileSync(path.join(stubs, file), text);
    }
    const out = execFileSync('java', [PROGRAM, root, sourceDir, stubs], { maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] });
    return JSON.parse(out.toString('utf8')) as TruthDeclaration[];
  } finally {
    fs.rmSync(stubs, { recursive: true, force: true });
  }
}

/** The tool and version that produced the answers. */
export function javaTool(): string {
  // `java -version` writes to stderr.
  const line = execFileSync('sh', ['-c', 'java -version 2>&1 | head -1']).toString().trim();
  return `javac attribution, Compiler Tree API (bench/quality/tools/java-callers, ${line})`;
}
