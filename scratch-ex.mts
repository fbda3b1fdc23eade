import { readFileSync } from 'node:fs';
import * as P from '/work/wt/py-properties/plugins/graph/engine/parsers/index.ts';
await P.initParsers();
const extract = await P.extractorFor("python");
const [file, ...names] = process.argv.slice(2);
const ex = extract(file, readFileSync('/tmp/pyprop/' + file, 'utf8'));
for (const b of ex.bindings ?? []) if (names.includes(b.name)) console.log(JSON.stringify(b));
for (const s of ex.symbols) if (names.includes(s.name)) console.log(JSON.stringify(s));
for (const c of ex.calls) if (names.includes(c.callee)) console.log(JSON.stringify(c));
