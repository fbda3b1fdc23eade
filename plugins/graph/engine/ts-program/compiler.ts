/**
 * The TypeScript compiler as the checker's modules use it, taken with `require` rather than an ESM
 * `import` of the package. Importing the 9 MB CommonJS file from ESM costs Node 20 about as much again
 * as compiling it: the ESM loader reads the file twice, runs its module-syntax detection over it and
 * lexes it for named exports (~0.5 s of CPU in the worker's start-up on the project machine), even
 * when compiler-cache.ts has already loaded it. Types come from `import type TS from 'typescript'`.
 */
import { createRequire } from 'node:module';
import type TS from 'typescript';

const ts = createRequire(import.meta.url)('typescript') as typeof TS;
export default ts;
