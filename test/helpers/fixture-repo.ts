/** A small real repository in several languages, written into a temp workspace by tests. */
import fs from 'node:fs';
import path from 'node:path';

export const FIXTURE_FILES: Record<string, string> = {
  'src/math.ts': `/** Adds two numbers. */
export function add(a: number, b: number): number {
  return a + b;
}

export function mul(a: number, b: number): number {
  let out = 0;
  for (let i = 0; i < b; i++) out = add(out, a);
  return out;
}
`,
  'src/cart.ts': `import { add } from './math.ts';

/** Totals a list of prices in a shopping cart. */
export function total(prices: number[]): number {
  return prices.reduce((sum, p) => add(sum, p), 0);
}

export class Cart {
  items: number[] = [];
  checkout(): number {
    return total(this.items);
  }
}
`,
  'tests/cart.test.ts': `import { total } from '../src/cart.ts';

export function testTotal(): boolean {
  return total([1, 2]) === 3;
}
`,
  'py/retry.py': `"""Retry helpers."""
import time


def backoff(attempt):
    """Seconds to wait before retry number attempt."""
    return min(30, 2 ** attempt)


def retry(fn, attempts=3):
    for attempt in range(attempts):
        try:
            return fn()
        except Exception:
            time.sleep(backoff(attempt))
    raise RuntimeError("gave up")
`,
  'go/server.go': `package server

// Serve answers requests until stopped.
func Serve(port int) error {
	return listen(port)
}

func listen(port int) error {
	return nil
}
`,
  'docs/guide.md': `# Guide

## Checkout

The cart total lives in \`src/cart.ts\`; see \`total\`.
`,
};

/** Writes the fixture repository into `dir` and returns it. */
export function writeFixtureRepo(dir: string, files: Record<string, string> = FIXTURE_FILES): string {
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  return dir;
}
