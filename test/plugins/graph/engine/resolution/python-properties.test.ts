import { strict as assert } from 'node:assert';
import type { Harness } from '../../../../helpers/mcp.ts';
import { callersOf, ingestedRepo } from './callers.ts';

const FILES: Record<string, string> = {
  'app/__init__.py': `from .client import Client\n`,
  'app/client.py': `from contextlib import contextmanager
from typing import Iterator


class URL:
    def __init__(self, raw):
        self._raw = raw

    @property
    def host(self) -> str:
        return self._raw


class Client:
    def __init__(self, url, timeout=None):
        url = URL(url)
        self.url = url
        self._timeout = timeout
        self._closed = False

    @property
    def is_closed(self) -> bool:
        return self._closed

    @property
    def timeout(self):
        return self._timeout

    @timeout.setter
    def timeout(self, value):
        self._timeout = value

    @timeout.deleter
    def timeout(self):
        self._timeout = None

    def describe(self):
        return self.is_closed


@contextmanager
def open_client(url) -> Iterator[Client]:
    yield Client(url)


class ClientError(Exception):
    @property
    def detail(self) -> str:
        return "x"
`,
  'app/transport.py': `class Base:
    def open(self):
        pass
`,
  'app/use.py': `from typing import Generator

import app
import app.transport as tr
from app.client import URL, Client, ClientError, open_client


def check(client: Client):
    return client.is_closed


def configure(client: Client):
    client.timeout = 5


def host_of(client: Client):
    return client.url.host


def with_block():
    with open_client("x") as c:
        return c.is_closed


def qualified(client: app.Client):
    return client.is_closed


def chosen(flag):
    u = URL("a") if flag else URL("b")
    return u.host


def normalised(u):
    u = URL(u) if isinstance(u, str) else u
    return u.host


def guarded():
    try:
        pass
    except ClientError as exc:
        return exc.detail


def flow(request: URL) -> Generator[URL, Client, None]:
    response = yield request
    return response.is_closed


def unknown(obj):
    return obj.is_closed, obj.timeout


def on_class():
    return Client.is_closed


class Mine(tr.Base):
    def open(self):
        super().open()
`,
};

describe('graph: Python properties and the receivers that reach them', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await ingestedRepo(FILES);
  });
  after(async () => {
    await h?.close();
  });

  it('links attribute reads on typed receivers (params, with, pkg.Name, yield) to the property getter, never on unknown receivers or the class', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/client.py#Client.is_closed'), [
      'function:app/use.py#check',
      'function:app/use.py#flow',
      'function:app/use.py#qualified',
      'function:app/use.py#with_block',
      'method:app/client.py#Client.describe',
    ]);
  });

  it('links an attribute assignment to the property (setter merged into it)', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/client.py#Client.timeout'), ['function:app/use.py#configure']);
  });

  it('merges getter, setter and deleter into one node with the plain id spanning them', async () => {
    const { json } = await h.call('impact', { agent_id: 't', node_id: 'method:app/client.py#Client.timeout', direction: 'reverse', max_depth: 1 });
    assert.deepEqual(json.node.lines, [26, 35], "from the getter's def to the deleter's end");
    const setter = await h.call('impact', { agent_id: 't', node_id: 'method:app/client.py#Client.timeout#2', direction: 'reverse', max_depth: 1 });
    assert.equal(setter.result.isError, true, 'no node is left for an accessor');
  });

  it('types fields assigned from a local, conditional values, except-as, mod.Base parents', async () => {
    assert.deepEqual(await callersOf(h, 'method:app/client.py#URL.host'), ['function:app/use.py#chosen', 'function:app/use.py#host_of', 'function:app/use.py#normalised']);
    assert.deepEqual(await callersOf(h, 'method:app/transport.py#Base.open'), ['method:app/use.py#Mine.open']);
    assert.deepEqual(await callersOf(h, 'method:app/client.py#ClientError.detail'), ['function:app/use.py#guarded'], 'except … as binds the exception type');
  });
});
