import assert from 'node:assert/strict';
import { filesByBase, matchFrameFile } from '../../../plugins/history/frame-files.ts';
import { parseTrace } from '../../../plugins/history/stack-frames.ts';

const RUST = `thread 'main' panicked at src/parser.rs:42:9:
index out of bounds: the len is 3 but the index is 7
stack backtrace:
   0: rust_begin_unwind
             at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/std/src/panicking.rs:645:5
   1: app::parser::parse_line
             at ./src/parser.rs:42:9
   2: app::main
             at ./src/main.rs:10:5`;

const JAVA = `Exception in thread "main" java.lang.IllegalStateException: closed
	at com.acme.shop.Cart.checkout(Cart.java:57)
	at com.acme.shop.Main.main(Main.java:12)
	at java.base/java.lang.Thread.run(Thread.java:833)`;

const DOTNET = `Unhandled exception. System.InvalidOperationException: closed
   at Acme.Shop.Cart.Checkout() in C:\\src\\Acme.Shop\\Cart.cs:line 57
   at Acme.Shop.Program.Main(String[] args) in C:\\src\\Acme.Shop\\Program.cs:line 12`;

describe('stack trace parsing', () => {
  it('reads a Rust panic and backtrace innermost first, the panic site once', () => {
    const t = parseTrace(RUST);
    assert.equal(t.language, 'rust');
    assert.deepEqual(
      t.frames.map((f) => `${f.path}:${f.line}`),
      ['src/parser.rs:42', '/rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/std/src/panicking.rs:645', 'src/main.rs:10'],
    );
    assert.equal(t.frames[0].func, 'parse_line', 'named by its backtrace frame');
  });

  it('reads Java frames with their declaring type, and maps them by package path', () => {
    const t = parseTrace(JAVA);
    assert.equal(t.language, 'java');
    assert.equal(t.frames[0].func, 'checkout');
    assert.equal(t.frames[0].qualifiedType, 'com.acme.shop.Cart');
    const byBase = filesByBase(['src/main/java/com/acme/shop/Cart.java', 'legacy/Cart.java']);
    assert.deepEqual(matchFrameFile(t.frames[0], '/repo', byBase), { path: 'src/main/java/com/acme/shop/Cart.java', confidence: 1 });
    assert.equal(matchFrameFile(t.frames[2], '/repo', byBase), null, 'a JDK frame maps to no workspace file');
  });

  it('reads .NET frames with Windows paths', () => {
    const t = parseTrace(DOTNET);
    assert.equal(t.language, 'dotnet');
    assert.deepEqual(t.frames.map((f) => [f.path, f.line, f.func]), [
      ['/src/Acme.Shop/Cart.cs', 57, 'Checkout'],
      ['/src/Acme.Shop/Program.cs', 12, 'Main'],
    ]);
    const byBase = filesByBase(['Acme.Shop/Cart.cs', 'Other/Cart.cs']);
    assert.equal(matchFrameFile(t.frames[0], '/repo', byBase)?.path, 'Acme.Shop/Cart.cs');
  });

  it('prefers the longer path suffix when two files share a name', () => {
    const byBase = filesByBase(['a/util.py', 'b/c/util.py']);
    const m = matchFrameFile({ path: '/srv/app/b/c/util.py', line: 3, column: null, func: null }, '/repo', byBase);
    assert.deepEqual(m, { path: 'b/c/util.py', confidence: 1 });
  });
});
