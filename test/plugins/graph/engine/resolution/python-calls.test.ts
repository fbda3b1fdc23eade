import { strict as assert } from 'node:assert';
import type { Harness } from '../../../../helpers/mcp.ts';
import { callersOf, ingestedRepo } from './callers.ts';

const FILES: Record<string, string> = {
  'app/__init__.py': `from .models import helper\n`,
  'app/bar.py': `class ProgressBar:
    def update(self, n):
        pass

    def write(self, text):
        pass

    def close(self):
        pass


class Motor:
    def start(self):
        pass

    def stop(self):
        pass

    def drive(self):
        pass

    def rev(self):
        pass
`,
  'app/http.py': `def get(url):
    return url
`,
  'app/models.py': `from typing import overload


class Engine:
    def start(self) -> "Engine":
        return self

    def stop(self):
        pass

    def rev(self):
        pass


class Garage:
    @property
    def engine(self) -> Engine:
        return Engine()


class Car:
    def __init__(self, engine: Engine):
        self.engine = engine
        self.spare = Engine()

    def drive(self):
        self.engine.start()
        self.spare.stop()


def make_engine() -> Engine:
    return Engine()


def helper():
    pass


@overload
def parse(x: int) -> int: ...
@overload
def parse(x: str) -> str: ...
def parse(x):
    return x


class Base:
    def greet(self):
        pass

    @classmethod
    def create(cls):
        return cls()


class Child(Base):
    def greet(self):
        super().greet()

    @classmethod
    def build(cls):
        return cls.create()
`,
  'app/use.py': `import sys
import app.bar as barmod
from requests import get
from app.models import Car, Garage, make_engine, Engine, parse
from app import helper


def run(car: Car):
    car.drive()
    e = make_engine()
    e.stop()
    x = Engine()
    x.start().stop()
    b = barmod.ProgressBar()
    b.update(1)
    return parse(1)


def merge(d, extra):
    d.update(extra)
    with open("f") as fh:
        fh.close()


def log(text):
    sys.stdout.write(text)


def fetch():
    return get("http://example.com")


def shadow(make):
    helper = make()
    helper()


def use_helper():
    helper()


def park(g: Garage):
    g.engine.rev()
`,
};

describe('Python call resolution through scopes, imports and receiver types', function () {
  this.timeout(60_000);
  let h: Harness;

  before(async () => {
    h = await ingestedRepo(FILES);
  });
  after(async () => {
    await h?.close();
  });

  it('links a call on a parameter annotated with a class to that class’s method', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/models.py#Car.drive'), ['function:app/use.py#run']);
  });

  it('types self.x from __init__ (a typed parameter or a constructed value) and locals from constructors and return annotations', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/models.py#Engine.start'), ['function:app/use.py#run', 'method:app/models.py#Car.drive']);
    assert.deepEqual(await callersOf(h, 'method:app/models.py#Engine.stop'), ['function:app/use.py#run', 'method:app/models.py#Car.drive']);
    assert.deepEqual(await callersOf(h, 'method:app/bar.py#Motor.start'), [], 'a method of the same name on another class');
  });

  it('reads a property’s return annotation as the type of the attribute', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/models.py#Engine.rev'), ['function:app/use.py#park']);
  });

  it('does not link dict.update, file.close or sys.stdout.write to same-named workspace methods', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/bar.py#ProgressBar.update'), ['function:app/use.py#run'], 'only the ProgressBar built through the module alias');
    assert.deepEqual(await callersOf(h, 'method:app/bar.py#ProgressBar.close'), []);
    assert.deepEqual(await callersOf(h, 'method:app/bar.py#ProgressBar.write'), []);
  });

  it('treats a name imported from an outside package as external', async () => {
    assert.deepEqual(await callersOf(h, 'function:app/http.py#get'), []);
  });

  it('lets a local variable shadow an imported function, and follows a package re-export otherwise', async () => {
    assert.deepEqual(await callersOf(h, 'function:app/models.py#helper'), ['function:app/use.py#use_helper']);
  });

  it('merges @overload stubs into the implementation, which keeps the plain id', async () => {
    const { json } = await h.call('impact', { agent_id: 't', node_id: 'function:app/models.py#parse', direction: 'reverse', max_depth: 1 });
    assert.deepEqual(json.node.lines, [43, 44], 'the implementation, not the first stub');
    assert.deepEqual(await callersOf(h, 'function:app/models.py#parse'), ['function:app/use.py#run']);
    const stub = await h.call('impact', { agent_id: 't', node_id: 'function:app/models.py#parse#2', direction: 'reverse', max_depth: 1 });
    assert.equal(stub.result.isError, true, 'no node is left for a stub');
  });

  it('resolves super() and cls receivers through the class hierarchy', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/models.py#Base.greet'), ['method:app/models.py#Child.greet']);
    assert.deepEqual(await callersOf(h, 'method:app/models.py#Base.create'), ['method:app/models.py#Child.build']);
  });
});

describe('Python element types through list(), sorted(), reversed(), tuple()', function () {
  this.timeout(60_000);
  let h: Harness;
  const CHAIN: Record<string, string> = {
    'app/__init__.py': '',
    'app/chain.py': `import typing


class Decoder:
    def decode(self, data):
        return data

    def flush(self):
        return b""


class Other:
    def decode(self, data):
        return data

    def flush(self):
        return b""


class Chain:
    def __init__(self, children: typing.Sequence[Decoder]) -> None:
        self.children = list(reversed(children))

    def decode(self, data):
        for child in self.children:
            data = child.decode(data)
        return data

    def flush(self):
        ordered = tuple(sorted(self.children, key=id))
        out = b""
        for c in ordered:
            out += c.flush()
        return out


class Defaults:
    def __init__(self, first: typing.Sequence[Decoder] | None = None, second: list[Decoder] | None = None) -> None:
        self.first = [] if first is None else list(first)
        self.second = second or []

    def loop_first(self) -> None:
        for a in self.first:
            a.flush()

    def loop_second(self) -> None:
        for b in self.second:
            b.flush()

    def loop_third(self, third: typing.Optional[list[Decoder]] = None) -> None:
        for c in third or ():
            c.flush()
`,
  };

  before(async () => {
    h = await ingestedRepo(CHAIN);
  });
  after(async () => {
    await h?.close();
  });

  it('types a loop variable over a field built with list(reversed(xs)) from the parameter’s element type, and never another class’s same-named method', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/chain.py#Decoder.decode'), ['method:app/chain.py#Chain.decode']);
    assert.deepEqual(await callersOf(h, 'method:app/chain.py#Other.decode'), []);
  });

  it('keeps the element type through tuple(sorted(xs, key=…)) into a local', async () => {
    const flush = await callersOf(h, 'method:app/chain.py#Decoder.flush');
    assert.ok(flush.includes('method:app/chain.py#Chain.flush'), flush.join());
    assert.deepEqual(await callersOf(h, 'method:app/chain.py#Other.flush'), []);
  });

  it('reads x or [] and [] if x is None else list(x) as x: an empty default adds no type', async () => {
    const flush = await callersOf(h, 'method:app/chain.py#Decoder.flush');
    for (const loop of ['loop_first', 'loop_second', 'loop_third']) assert.ok(flush.includes(`method:app/chain.py#Defaults.${loop}`), flush.join());
  });
});

describe('Python receivers typed as a union of workspace classes', function () {
  this.timeout(60_000);
  let h: Harness;
  const FIELDS: Record<string, string> = {
    'app/__init__.py': '',
    'app/fields.py': `import typing


class DataField:
    def render(self):
        return b""


class FileField:
    def render(self):
        return b""

    def size(self):
        return 0


class Unrelated:
    def render(self):
        return b""


class Form:
    def __init__(self, items):
        self.fields = list(self._iter_fields(items))

    def _iter_fields(self, items) -> typing.Iterator[FileField | DataField]:
        for item in items:
            yield DataField() if item else FileField()

    def body(self):
        for field in self.fields:
            yield field.render()


def pick(flag) -> typing.Union[DataField, FileField, None]:
    return None


def sizes(field: DataField | FileField, flag):
    chosen = DataField() if flag else FileField()
    chosen.render()
    return field.size()


def first():
    return pick(True).render()
`,
  };

  before(async () => {
    h = await ingestedRepo(FIELDS);
  });
  after(async () => {
    await h?.close();
  });

  it('links a member call on A | B, Union[A, B, None] and A() if c else B() to the member of each class that has it, and never another class’s', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/fields.py#DataField.render'), ['function:app/fields.py#first', 'function:app/fields.py#sizes', 'method:app/fields.py#Form.body']);
    assert.deepEqual(await callersOf(h, 'method:app/fields.py#FileField.render'), ['function:app/fields.py#first', 'function:app/fields.py#sizes', 'method:app/fields.py#Form.body']);
    assert.deepEqual(await callersOf(h, 'method:app/fields.py#FileField.size'), ['function:app/fields.py#sizes'], 'only the class that has the member');
    assert.deepEqual(await callersOf(h, 'method:app/fields.py#Unrelated.render'), []);
  });
});

describe('Python calls on what calling an object returns', function () {
  this.timeout(60_000);
  let h: Harness;
  // A fixture typed by a Protocol with __call__ (declared only for the type checker), and a callable object.
  const FACTORY: Record<string, string> = {
    'app/__init__.py': '',
    'app/client.py': `import httpx


class Client:
    def get(self, url) -> httpx.Response:
        return httpx.get(url)


class Maker:
    def __call__(self, base) -> Client:
        return Client()
`,
    'app/request.py': `class Request:
    def json(self):
        return {}
`,
    'tests/types.py': `from typing import TYPE_CHECKING, Protocol

from app.client import Client

if TYPE_CHECKING:

    class ClientFactory(Protocol):
        def __call__(self, base: str = "") -> Client: ...
else:

    class ClientFactory:
        pass
`,
    'tests/test_app.py': `from typing import Callable

from app.client import Client, Maker
from tests.types import ClientFactory


def test_get(client_factory: ClientFactory) -> None:
    client = client_factory("x")
    response = client.get("/")
    response.json()


def test_maker() -> None:
    make = Maker()
    make("y").get("/")


def test_callable(factory: Callable[..., Client]) -> None:
    factory().get("/")
`,
  };

  before(async () => {
    h = await ingestedRepo(FACTORY);
  });
  after(async () => {
    await h?.close();
  });

  it('types the result of calling a Protocol-typed parameter or a callable object by its __call__, and a Callable[..., R] parameter as R, and takes json() on the outside library\'s response for no workspace method', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/client.py#Client.get'), ['function:tests/test_app.py#test_callable', 'function:tests/test_app.py#test_get', 'function:tests/test_app.py#test_maker']);
    assert.deepEqual(await callersOf(h, 'method:app/request.py#Request.json'), []);
  });
});

describe('Python isinstance narrowing and mapping items', function () {
  this.timeout(60_000);
  let h: Harness;
  const NARROW: Record<string, string> = {
    'app/__init__.py': '',
    'app/parts.py': `class Upload:
    async def read(self):
        return b""

    def extra(self):
        return 0


class Field:
    def text(self):
        return ""


class Other:
    def read(self):
        return b""

    def extra(self):
        return 0

    def text(self):
        return ""
`,
    'app/handlers.py': `from app.parts import Field, Other, Upload


async def handle(items, request):
    for key, value in items:
        if isinstance(value, Upload):
            await value.read()
        elif isinstance(value, Field):
            value.text()
    value.extra()


def check(kwargs):
    part = kwargs.get("part")
    assert isinstance(part, (Field, Upload))
    return part.text()


def texts(fields: dict[str, Field]):
    for name, field in fields.items():
        field.text()
`,
  };

  before(async () => {
    h = await ingestedRepo(NARROW);
  });
  after(async () => {
    await h?.close();
  });

  it('types a name by isinstance in the if/elif block it guards and after an assert (a tuple of classes as their union), and not past the block; for k, v in d.items() gives v the mapping\'s value type', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/parts.py#Upload.read'), ['function:app/handlers.py#handle']);
    assert.deepEqual(await callersOf(h, 'method:app/parts.py#Field.text'), ['function:app/handlers.py#check', 'function:app/handlers.py#handle', 'function:app/handlers.py#texts']);
    assert.deepEqual(await callersOf(h, 'method:app/parts.py#Other.read'), []);
    assert.deepEqual(await callersOf(h, 'method:app/parts.py#Upload.extra'), [], 'past the if block the name is not narrowed');
    assert.deepEqual(await callersOf(h, 'method:app/parts.py#Other.text'), []);
  });
});

describe('Python members a workspace class does not define', function () {
  this.timeout(60_000);
  let h: Harness;
  const OUTSIDE: Record<string, string> = {
    'app/__init__.py': '',
    'app/client.py': `import httpx


class Client(httpx.Client):
    def fetch(self, url):
        return url


class Jar:
    def delete(self, name):
        return name
`,
    'app/router.py': `def not_found(scope):
    return None


class Router:
    def app(self, scope):
        return scope


class Route:
    def __init__(self, endpoint):
        self.app = endpoint
        self.fallback = not_found

    def handle(self, scope):
        self.fallback(scope)
        return self.app(scope)
`,
    'app/use.py': `from app.client import Client


def clear(client: Client) -> None:
    client.cookies.delete("session")
    client.fetch("/")
`,
  };

  before(async () => {
    h = await ingestedRepo(OUTSIDE);
  });
  after(async () => {
    await h?.close();
  });

  it('takes a member missing from a class with an outside base for that base\'s, not a same-named workspace method', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/client.py#Client.fetch'), ['function:app/use.py#clear']);
    assert.deepEqual(await callersOf(h, 'method:app/client.py#Jar.delete'), []);
  });

  it('calls what a field holds for self.field(…), never a same-named method of another class', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/router.py#Router.app'), []);
    assert.deepEqual(await callersOf(h, 'function:app/router.py#not_found'), ['method:app/router.py#Route.handle']);
  });
});

describe('Python unpacking by position', function () {
  this.timeout(60_000);
  let h: Harness;
  const UNPACK: Record<string, string> = {
    'app/__init__.py': '',
    'app/routes.py': `class Route:
    def match(self):
        return True


class Tail:
    def match(self):
        return False


def split(text) -> tuple[Route, Tail]:
    return Route(), Tail()


def use(text):
    route, tail = split(text)
    route.match()


class Holder:
    def __init__(self, text):
        self.route, self.tail = split(text)

    def go(self):
        return self.tail.match()


def each(routes: list[Route]):
    for i, r in enumerate(routes):
        r.match()
`,
  };

  before(async () => {
    h = await ingestedRepo(UNPACK);
  });
  after(async () => {
    await h?.close();
  });

  it('gives a, b = f() (locals or self fields) the items of f\'s tuple return type by position, and for i, x in enumerate(xs) the element', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/routes.py#Route.match'), ['function:app/routes.py#each', 'function:app/routes.py#use']);
    assert.deepEqual(await callersOf(h, 'method:app/routes.py#Tail.match'), ['method:app/routes.py#Holder.go']);
  });
});

describe('Python type aliases', function () {
  this.timeout(60_000);
  let h: Harness;
  const ALIAS: Record<string, string> = {
    'app/__init__.py': '',
    'app/http.py': `import typing


class Response:
    def send(self):
        return None


class Other:
    def send(self):
        return None


Endpoint = typing.Callable[[str], typing.Awaitable[Response]]
Maybe = typing.Optional[Response]
R = typing.TypeVar("R", bound=Response)
Later = typing.TypeVar("Later", bound="Response")
`,
    'app/middleware.py': `from app.http import Endpoint, Maybe


async def dispatch(request, call_next: Endpoint):
    response = await call_next(request)
    response.send()


def finish(r: Maybe):
    r.send()
`,
    'app/generic.py': `import typing

from app.http import Later, R


def resend(r: R) -> R:
    r.send()
    return r


class Box(typing.Generic[Later]):
    def __init__(self, item: Later) -> None:
        self.item = item

    def flush(self) -> None:
        self.item.send()
`,
  };

  before(async () => {
    h = await ingestedRepo(ALIAS);
  });
  after(async () => {
    await h?.close();
  });

  it('reads a parameter typed by a module-level alias (imported or not) as the type the alias stands for, and a bound TypeVar as its bound', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/http.py#Response.send'), ['function:app/generic.py#resend', 'function:app/middleware.py#dispatch', 'function:app/middleware.py#finish', 'method:app/generic.py#Box.flush']);
    assert.deepEqual(await callersOf(h, 'method:app/http.py#Other.send'), []);
  });
});

describe('Python results of unannotated functions', function () {
  this.timeout(60_000);
  let h: Harness;
  const FILES: Record<string, string> = {
    'app/__init__.py': '',
    'app/proto.py': `class H11:
    def data_received(self, data):
        return None


class Tools:
    def data_received(self, data):
        return None


class Other:
    def data_received(self, data):
        return None
`,
    'tests/__init__.py': '',
    'tests/helpers.py': `from __future__ import annotations

from typing import TYPE_CHECKING

from app.proto import H11, Tools

if TYPE_CHECKING:
    from typing import TypeAlias

    Protocol: TypeAlias = "type[Tools | H11]"


def connect(protocol_cls: Protocol):
    protocol = protocol_cls()
    return protocol


def plain():
    p = H11()
    return p


def make(cls: type[Tools]):
    return cls()
`,
    'tests/test_http.py': `from tests.helpers import connect, make, plain


def test_connect(protocol_cls):
    protocol = connect(protocol_cls)
    protocol.data_received(b"GET")


def test_plain():
    plain().data_received(b"GET")


def test_make():
    make(None).data_received(b"GET")
`,
  };
  before(async () => {
    h = await ingestedRepo(FILES);
  });
  after(async () => {
    await h?.close();
  });

  it('types a call of an unannotated function by what it returns (its locals, a TypeAlias under TYPE_CHECKING, type[A | B], a typed cls)', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/proto.py#H11.data_received'), ['function:tests/test_http.py#test_connect', 'function:tests/test_http.py#test_plain']);
    assert.deepEqual(await callersOf(h, 'method:app/proto.py#Tools.data_received'), ['function:tests/test_http.py#test_connect', 'function:tests/test_http.py#test_make']);
    assert.deepEqual(await callersOf(h, 'method:app/proto.py#Other.data_received'), []);
  });
});

describe('Python receivers typed by guards, comprehensions and declared unions', function () {
  this.timeout(60_000);
  let h: Harness;
  const FILES: Record<string, string> = {
    'app/__init__.py': '',
    'app/fields.py': `class Field:
    def deserialize(self, value):
        return value


class Other:
    def deserialize(self, value):
        return value


class A:
    def shutdown(self):
        return None


class B(A):
    def shutdown(self):
        return None


class C(A):
    def shutdown(self):
        return None


class D(A):
    def shutdown(self):
        return None


class E(A):
    def shutdown(self):
        return None
`,
    'app/resolve.py': `from app.fields import Field


def resolve_field(cls_or_instance):
    if isinstance(cls_or_instance, type):
        if not issubclass(cls_or_instance, Field):
            raise ValueError("not a field class")
        return cls_or_instance()
    if not isinstance(cls_or_instance, Field):
        raise ValueError("not a field")
    return cls_or_instance


def guarded(value):
    value.deserialize(1)
    if not isinstance(value, Field):
        return None
    return value.deserialize(2)
`,
    'app/casts.py': `import typing as t
from typing import cast

from app.fields import Field


def by_cast(obj):
    field = t.cast("Field", obj.field)
    return field.deserialize(3)


def as_field(obj):
    return cast(Field, obj)


def via_helper(obj):
    return as_field(obj).deserialize(4)
`,
    'app/older.py': `from app import fields as app_fields
from app.resolve import resolve_field as resolve_one


class Registry:
    def __init__(self):
        self.by_name = {}  # type: dict[str, app_fields.Field]
        self.spare = None  # type: ignore

    def load_all(self, data):
        for name, field_obj in self.by_name.items():
            def getter(val, field_obj=field_obj):
                return field_obj.deserialize(val)
            getter(data)

    def first(self, spec):
        return resolve_one(spec).deserialize(5)
`,
    'app/use.py': `from typing import TYPE_CHECKING, Union

from app.fields import Field
from app.resolve import resolve_field

if TYPE_CHECKING:
    from app.fields import A, B, C, D, E

    Conn = Union[A, B, C, D, E]


def inner(spec):
    return resolve_field(spec).deserialize(0)


def each(fields: list[Field], values):
    return [f.deserialize(v) for f, v in zip(fields, values)]


def lazily(fields: list[Field]):
    return sum(
        f.deserialize(0)
        for f in fields
    )


def close_all(conns: set[Conn]):
    for conn in conns:
        conn.shutdown()


def leaked(fields: list[Field], f):
    names = [f for f in fields]
    return f.deserialize(0)
`,
  };
  before(async () => {
    h = await ingestedRepo(FILES);
  });
  after(async () => {
    await h?.close();
  });

  it('narrows a name after an `if not isinstance(x, T): raise` guard and an issubclass one, also in the return an unannotated helper is typed by', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/fields.py#Field.deserialize'), [
      'function:app/casts.py#by_cast',
      'function:app/casts.py#via_helper',
      'function:app/older.py#Registry.load_all.getter',
      'function:app/resolve.py#guarded',
      'function:app/use.py#each',
      'function:app/use.py#inner',
      'function:app/use.py#lazily',
      'method:app/older.py#Registry.first',
    ]);
    assert.deepEqual(await callersOf(h, 'method:app/fields.py#Other.deserialize'), []);
  });

  it('types a comprehension\'s targets inside it only (zip pairs each with its argument; a generator over several lines)', async () => {
    // `leaked` reads its parameter f after a comprehension that bound another f: not a Field there.
    const callers = await callersOf(h, 'method:app/fields.py#Field.deserialize');
    assert.ok(callers.includes('function:app/use.py#each') && callers.includes('function:app/use.py#lazily'), JSON.stringify(callers));
    assert.ok(!callers.includes('function:app/use.py#leaked'), JSON.stringify(callers));
  });

  it('types typing.cast(T, x) (t.cast("T", x), a bare cast) as T, in an assignment and in an unannotated function\'s return', async () => {
    const callers = await callersOf(h, 'method:app/fields.py#Field.deserialize');
    assert.ok(callers.includes('function:app/casts.py#by_cast') && callers.includes('function:app/casts.py#via_helper'), JSON.stringify(callers));
  });

  it('reads a PEP 484 type comment, a submodule or function imported under another name (`from app import fields as f`), and a closure\'s `x=x` default as the enclosing x', async () => {
    const callers = await callersOf(h, 'method:app/fields.py#Field.deserialize');
    for (const c of ['function:app/older.py#Registry.load_all.getter', 'method:app/older.py#Registry.first']) assert.ok(callers.includes(c), `${c} in ${JSON.stringify(callers)}`);
    assert.deepEqual(await callersOf(h, 'function:app/resolve.py#resolve_field'), ['function:app/use.py#inner', 'method:app/older.py#Registry.first']);
  });

  it('links a call on a declared union of five classes (an alias under TYPE_CHECKING) to each member', async () => {
    for (const cls of ['A', 'B', 'C', 'D', 'E']) assert.deepEqual(await callersOf(h, `method:app/fields.py#${cls}.shutdown`), ['function:app/use.py#close_all'], cls);
  });
});
