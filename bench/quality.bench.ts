/**
 * The quality benchmark (bench/quality/main.ts) as one entry of `npm run bench`: callers precision and
 * recall against each language's own tooling, and retrieval hit@k/MRR against a ripgrep baseline.
 * It prints "skipped" when the repositories' mirrors are absent (see docs/benchmarks.md, Quality).
 */
export { run } from './quality/main.ts';
