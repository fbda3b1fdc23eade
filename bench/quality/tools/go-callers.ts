/**
 * Ground truth for Go callers: the go/types program in go-callers/ (standard library only), run with
 * the Go toolchain on PATH (Debian golang-go 1.19 works; no module download is needed).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TruthDeclaration } from '../truth-format.ts';

const PROGRAM_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'go-callers');
const GO_ENV = { ...process.env, GOPROXY: 'off', GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' };

/** Every function and method of the Go module at `root`, with its callers. */
export function goCallers(root: string): TruthDeclaration[] {
  const out = execFileSync('go', ['run', '.', root], { cwd: PROGRAM_DIR, env: GO_ENV, maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out.toString('utf8')) as TruthDeclaration[];
}

/** The tool and version that produced the answers. */
export function goTool(): string {
  const version = execFileSync('go', ['version'], { env: GO_ENV }).toString().trim();
  return `go/types (bench/quality/tools/go-callers, ${version})`;
}
