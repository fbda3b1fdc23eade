import { strict as assert } from 'node:assert';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness } from '../../../../helpers/mcp.ts';
import { ingestedRepo } from './callers.ts';

/**
 * A call of a Rust trait's method — `self.remaining()` in a default method, on a `B: Buf`, a
 * `&dyn Buf`, a field whose type is an impl's bounded parameter — may run any implementation of
 * it (what rustc's save-analysis reports: bench/quality/tools/rs-callers.ts); a call on a concrete
 * type runs that type's method only.
 */
const FILES: Record<string, string> = {
  'Cargo.toml': '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
  'src/lib.rs': 'pub mod buf;\npub mod bytes;\npub mod chain;\npub mod sink;\n',
  'src/buf.rs': `pub trait Buf {
    fn remaining(&self) -> usize;
    fn has_remaining(&self) -> bool {
        self.remaining() > 0
    }
}

impl Buf for &[u8] {
    fn remaining(&self) -> usize {
        self.len()
    }
}

pub fn total<B: Buf>(b: &B) -> usize {
    b.remaining()
}

pub fn bounded<B>(b: &mut B) -> usize
where
    B: Buf,
{
    b.remaining()
}

pub fn boxed(b: &dyn Buf) -> usize {
    b.remaining()
}
`,
  'src/sink.rs': `pub struct Sink;

impl Sink {
    pub fn put<T: super::buf::Buf>(&mut self, src: T) -> usize {
        src.remaining()
    }
}
`,
  'src/bytes.rs': `use crate::buf::Buf;

pub struct Bytes {
    len: usize,
}

impl Buf for Bytes {
    fn remaining(&self) -> usize {
        self.len
    }
}

pub fn direct(b: &Bytes) -> usize {
    b.remaining()
}
`,
  'src/chain.rs': `use crate::buf::Buf;

pub struct Chain<T, U> {
    a: T,
    b: U,
}

impl<T: Buf, U: Buf> Buf for Chain<T, U> {
    fn remaining(&self) -> usize {
        self.a.remaining() + self.b.remaining()
    }
}
`,
};

const SLICE = 'method:src/buf.rs#[u8].remaining';
const BYTES = 'method:src/bytes.rs#Bytes.remaining';
const CHAIN = 'method:src/chain.rs#Chain.remaining';
const TRAIT = 'method:src/buf.rs#Buf.remaining';

/** Direct dependents of a node by relation (`impact` reverse at depth 1). */
async function dependents(h: Harness, id: string): Promise<Record<string, string[]>> {
  const { json } = await h.call('impact', { agent_id: 't', node_id: id, direction: 'reverse', max_depth: 1, detail: 'full' });
  assert.equal(json.node?.id, id, JSON.stringify(json).slice(0, 300));
  const out: Record<string, string[]> = {};
  for (const e of json.direct as { id: string; relation: string }[]) for (const rel of e.relation.split('+')) (out[rel] ??= []).push(e.id);
  for (const list of Object.values(out)) list.sort();
  return out;
}

const GENERIC_CALLERS = ['function:src/buf.rs#bounded', 'function:src/buf.rs#boxed', 'function:src/buf.rs#total', 'method:src/buf.rs#Buf.has_remaining', 'method:src/sink.rs#Sink.put'];

describe('Rust trait dispatch', function () {
  this.timeout(60_000);
  let h: Harness;
  let ws: string;
  before(async () => {
    h = await ingestedRepo(FILES);
    ws = (await h.call('health', { agent_id: 't' })).json.workspace_root ?? '';
  });
  after(() => h.close());

  it('links calls on self in a default method, a bounded generic (inline, where, or a bound written as a crate path), a dyn trait and a bounded field to the trait method', async () => {
    const d = await dependents(h, TRAIT);
    assert.deepEqual(d.calls, [...GENERIC_CALLERS, CHAIN].sort());
  });

  it('gives each implementation, a slice type the crate does not declare included, those callers as dispatches', async () => {
    for (const impl of [SLICE, BYTES]) assert.deepEqual((await dependents(h, impl)).dispatches, [...GENERIC_CALLERS, CHAIN].sort(), impl);
    // Chain's own method calls the trait on its parts, not itself.
    assert.deepEqual((await dependents(h, CHAIN)).dispatches, GENERIC_CALLERS);
  });

  it('links a call on a concrete type to that type\'s method only, with no dispatch to the others', async () => {
    assert.deepEqual((await dependents(h, BYTES)).calls, ['function:src/bytes.rs#direct']);
    const slice = await dependents(h, SLICE);
    assert.equal(slice.calls, undefined);
    assert.ok(!slice.dispatches?.includes('function:src/bytes.rs#direct'));
  });

  it('follows an incremental ingest: a new implementation gets the callers, a changed impl header drops them', async () => {
    assert.ok(ws, 'health names the workspace root');
    writeFileSync(join(ws, 'src/lib.rs'), 'pub mod buf;\npub mod bytes;\npub mod chain;\npub mod sink;\npub mod extra;\n');
    writeFileSync(join(ws, 'src/extra.rs'), 'use crate::buf::Buf;\npub struct Extra;\nimpl Buf for Extra {\n    fn remaining(&self) -> usize {\n        0\n    }\n}\n');
    await h.call('ingest', { agent_id: 't', path: ws, incremental: true });
    assert.deepEqual((await dependents(h, 'method:src/extra.rs#Extra.remaining')).dispatches, [...GENERIC_CALLERS, CHAIN].sort());

    writeFileSync(join(ws, 'src/bytes.rs'), FILES['src/bytes.rs'].replace('impl Buf for Bytes', 'pub trait Other {\n    fn remaining(&self) -> usize;\n}\n\nimpl Other for Bytes'));
    await h.call('ingest', { agent_id: 't', path: ws, incremental: true });
    const bytes = await dependents(h, BYTES);
    assert.equal(bytes.dispatches, undefined, JSON.stringify(bytes));
    assert.deepEqual((await dependents(h, SLICE)).dispatches, [...GENERIC_CALLERS, CHAIN].sort());

    rmSync(join(ws, 'src/extra.rs'));
    await h.call('ingest', { agent_id: 't', path: ws, incremental: true });
    assert.deepEqual((await dependents(h, SLICE)).dispatches, [...GENERIC_CALLERS, CHAIN].sort());
  });
});
