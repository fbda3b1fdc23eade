import { strict as assert } from 'node:assert';
import type { Harness } from '../../../../helpers/mcp.ts';
import { callersOf, ingestedRepo } from './callers.ts';

/**
 * Calls a type checker sees and tree-sitter leaves as token trees (inside a macro's arguments or a
 * `macro_rules!` body), and a `let` whose name is the function it calls (the answers rustc gives:
 * bench/quality/tools/rs-callers.ts).
 */
const FILES: Record<string, string> = {
  'Cargo.toml': '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
  'src/util.rs': `pub fn finish() -> usize {
    crate::abort_all();
    super::retry(2)
}
`,
  'src/lib.rs': `mod util;

fn abort_all() {}
fn retry(n: usize) -> usize { n }

macro_rules! complete {
    ($e:expr) => {
        match $e { Some(v) => v, None => return None }
    };
}

macro_rules! check {
    ($b:expr) => {
        validate($b)
    };
}

pub struct Cursor { pos: usize }

impl Cursor {
    pub fn new() -> Cursor { Cursor { pos: 0 } }
    pub fn bump(&mut self) -> Option<usize> { self.pos += 1; Some(self.pos) }
}

fn validate(b: usize) -> bool { b > 0 }

fn parse_method(c: &mut Cursor) -> Option<usize> { c.bump() }

fn comparator(text: &str) -> Option<usize> { Some(text.len()) }

pub fn parse(text: &str) -> Option<usize> {
    let mut cursor = Cursor::new();
    let method = complete!(parse_method(&mut cursor));
    assert!(check!(method));
    assert_eq!(complete!(cursor.bump()), method + 1);
    let comparator = comparator(text)?;
    Some(method + comparator)
}

pub fn later(text: &str) -> usize {
    let comparator = 3;
    comparator + text.len()
}

pub struct Pre { n: usize }
impl Pre { pub fn is_empty(&self) -> bool { self.n == 0 } }
pub struct Build;
impl Build { pub fn is_empty(&self) -> bool { true } }

fn pre_ident(text: &str) -> Result<(Pre, &str), ()> { Ok((Pre { n: text.len() }, text)) }

pub fn read(text: &str) -> Result<usize, ()> {
    let (pre, rest) = pre_ident(text)?;
    if pre.is_empty() { return Err(()); }
    Ok(rest.len())
}

pub struct Buffer { cap: usize }
impl Buffer {
    pub fn capacity(&self) -> usize { self.cap }
    pub fn reserve(&mut self, n: usize) { self.cap += n; }
}

pub struct Holder { items: Vec<u8> }
pub fn make_room(h: &mut Holder) { let v = &mut h.items; v.reserve(8); }
pub fn grow(b: &mut Buffer) { b.reserve(8); }

pub trait Sink {
    fn room(&self) -> usize;
    fn has_room(&self) -> bool;
    fn probe(&self) -> bool { true }
}

impl Sink for Vec<u8> {
    fn room(&self) -> usize { if self.probe() { self.capacity() - self.len() } else { 0 } }
    fn has_room(&self) -> bool { self.room() > 1 }
}

/// Reads the protocol version byte.
pub fn parse_version(b: &[u8]) -> u8 { b[0] }

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks that we parse the version.
    #[test]
    fn test_parse_version() { assert_eq!(parse_version(b"1"), b'1'); }

    #[test]
    fn parse_version_rejects_garbage() { parse_version(b"x"); }
}
`,
};

describe('Rust calls inside macros, lets named like the function they call, tuple patterns, std methods, unit tests in source files', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await ingestedRepo(FILES);
  });
  after(() => h.close());

  it('links calls written in the arguments of a macro (a bare name, a method on a typed local)', async () => {
    assert.deepEqual(await callersOf(h, 'function:src/lib.rs#parse_method'), ['function:src/lib.rs#parse']);
    assert.deepEqual(await callersOf(h, 'method:src/lib.rs#Cursor.bump'), ['function:src/lib.rs#parse', 'function:src/lib.rs#parse_method']);
  });

  it('links a call in a macro_rules! body to the scope the macro is defined in (the file), as rustc reports it', async () => {
    assert.deepEqual(await callersOf(h, 'function:src/lib.rs#validate'), ['file:src/lib.rs']);
  });

  it('types the names a tuple pattern takes from a function result (`let (pre, rest) = pre_ident(text)?`) by position', async () => {
    assert.deepEqual(await callersOf(h, 'method:src/lib.rs#Pre.is_empty'), ['function:src/lib.rs#read']);
    assert.deepEqual(await callersOf(h, 'method:src/lib.rs#Build.is_empty'), []);
  });

  it('reads self in an impl on a type the crate does not declare (Vec) as that type: never a crate struct\'s method of the same name', async () => {
    assert.deepEqual(await callersOf(h, 'method:src/lib.rs#Buffer.capacity'), []);
    assert.deepEqual(await callersOf(h, 'method:src/lib.rs#Vec.room'), ['method:src/lib.rs#Vec.has_room']);
    assert.deepEqual(await callersOf(h, 'method:src/lib.rs#Sink.probe'), ['method:src/lib.rs#Vec.room']);
  });

  it('leaves a std method called on a receiver of unknown type (`v.reserve(8)` on a Vec field) unlinked: only a typed Buffer reaches Buffer.reserve', async () => {
    assert.deepEqual(await callersOf(h, 'method:src/lib.rs#Buffer.reserve'), ['function:src/lib.rs#grow']);
  });

  it('resolves calls qualified by a module path of the crate (crate::, super::) to its items, private ones included', async () => {
    assert.deepEqual(await callersOf(h, 'function:src/lib.rs#abort_all'), ['function:src/util.rs#finish']);
    assert.deepEqual(await callersOf(h, 'function:src/lib.rs#retry'), ['function:src/util.rs#finish']);
  });

  it('ranks the function above the unit tests named after it in the same file (seek)', async () => {
    const { json } = await h.call('seek', { agent_id: 't', query: 'parse the version', top_k: 3 });
    assert.equal(json.results[0].id, 'function:src/lib.rs#parse_version');
  });

  it('reads `let comparator = comparator(text)` as a call of the function: the binding starts after its statement', async () => {
    assert.deepEqual(await callersOf(h, 'function:src/lib.rs#comparator'), ['function:src/lib.rs#parse']);
  });
});
