/** A small repository with a scripted git history (fixed authors and dates), written by history tests. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Runs git in `dir` with a fixed identity and the given date (ISO). */
export function git(dir: string, args: string[], date = '2024-01-01T12:00:00Z', author = 'Ada'): string {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: author,
      GIT_AUTHOR_EMAIL: `${author.toLowerCase()}@example.com`,
      GIT_COMMITTER_NAME: author,
      GIT_COMMITTER_EMAIL: `${author.toLowerCase()}@example.com`,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: dir,
    },
  });
}

/** Writes files (relative paths) into dir. */
export function write(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
}

/** Appends a line to each file and commits them together on day `day` (2024-01-01 + day). */
export function touch(dir: string, files: string[], day: number, subject: string, author = 'Ada'): void {
  for (const f of files) {
    const p = path.join(dir, f);
    const comment = f.endsWith('.py') ? '#' : f.endsWith('.md') ? '' : '//';
    fs.appendFileSync(p, `${comment} change ${day}\n`);
  }
  git(dir, ['add', '-A'], dayDate(day), author);
  git(dir, ['commit', '-q', '-m', subject], dayDate(day), author);
}

/** The ISO date of fixture day n. */
export function dayDate(day: number): string {
  return new Date(Date.UTC(2024, 0, 1, 12) + day * 86_400_000).toISOString();
}

export const HISTORY_FILES: Record<string, string> = {
  'src/math.ts': `export function add(a: number, b: number): number {
  return a + b;
}
`,
  'src/cart.ts': `import { add } from './math.ts';

export function total(prices: number[]): number {
  let sum = 0;
  for (const p of prices) {
    if (Number.isNaN(p)) throw new Error('bad price');
    sum = add(sum, p);
  }
  return sum;
}

export function checkout(prices: number[]): string {
  return \`total: \${total(prices)}\`;
}
`,
  'src/api.ts': `export function handleRequest(body: string): string {
  return body.trim();
}
`,
  'src/wire.ts': `export interface Wire {
  id: string;
}
`,
  'py/retry.py': `import time


def backoff(attempt):
    return min(30, 2 ** attempt)


def retry(fn, attempts=3):
    for attempt in range(attempts):
        try:
            return fn()
        except Exception:
            time.sleep(backoff(attempt))
    raise RuntimeError("gave up")
`,
  'py/config.py': `RETRIES = 3
`,
  'go/server.go': `package server

func Serve(port int) error {
	return listen(port)
}

func listen(port int) error {
	if port < 0 {
		panic("bad port")
	}
	return nil
}
`,
  'docs/guide.md': `# Guide

How to use the cart.
`,
};

/**
 * The scripted history: src/api.ts + src/wire.ts (renamed from src/schema.ts on day 3) and
 * py/retry.py + py/config.py change together with no static edge (ghost pairs); src/cart.ts +
 * src/math.ts change together with an import between them; go/server.go changes alone, except in
 * one formatting commit touching every file.
 */
export function writeHistoryRepo(dir: string): void {
  const files = { ...HISTORY_FILES };
  const wire = files['src/wire.ts'];
  delete files['src/wire.ts'];
  write(dir, { ...files, 'src/schema.ts': wire });
  git(dir, ['init', '-q', '-b', 'main'], dayDate(0));
  git(dir, ['add', '-A'], dayDate(0));
  git(dir, ['commit', '-q', '-m', 'initial import'], dayDate(0));
  let day = 1;
  touch(dir, ['src/api.ts', 'src/schema.ts'], day++, 'api: accept ids');
  git(dir, ['mv', 'src/schema.ts', 'src/wire.ts'], dayDate(day));
  git(dir, ['commit', '-q', '-m', 'rename schema to wire'], dayDate(day++));
  for (let cycle = 0; cycle < 6; cycle++) {
    touch(dir, ['src/api.ts', 'src/wire.ts'], day++, `api: field ${cycle}`, cycle % 2 ? 'Ada' : 'Bob');
    touch(dir, ['src/cart.ts', 'src/math.ts'], day++, `cart: rounding ${cycle}`);
    touch(dir, ['py/retry.py', 'py/config.py'], day++, `retry: tune ${cycle}`, 'Bob');
    touch(dir, ['go/server.go'], day++, `server: log ${cycle}`);
    if (cycle === 2) touch(dir, Object.keys(HISTORY_FILES), day++, 'style: format everything with prettier and gofmt');
  }
}
