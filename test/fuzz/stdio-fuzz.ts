/**
 * Runs the fuzz messages against a real `m1nd serve` process over stdio and checks that every
 * message that may carry an id was answered (by id, or with id null), that the process lived, and
 * that tools/list and health answer quickly afterwards.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FuzzMessage } from './messages.ts';

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/m1nd.js');

/** A spawned stdio server with its answers split into lines. */
export interface StdioServer {
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
  /** Answers received so far, parsed. */
  answers: any[];
  /** Resolves with the first answer carrying `id` (or after `ms`, with undefined). */
  waitFor(id: string | number, ms?: number): Promise<any>;
  send(line: string): void;
  exited: Promise<{ code: number | null; signal: string | null }>;
}

/** Spawns `m1nd serve` (stdio) on a workspace. */
export function spawnStdioServer(workspace: string, env: Record<string, string> = {}): StdioServer {
  const child = spawn(process.execPath, [BIN, 'serve', '--workspace', workspace], { env: { ...process.env, M1ND_LOG_LEVEL: 'warn', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  let rest = '';
  const answers: any[] = [];
  const waiters = new Map<string | number, (a: any) => void>();
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  // The server may stop reading and exit mid-write (the over-long line case): that EPIPE is expected.
  child.stdin.on('error', () => undefined);
  child.stdout.on('data', (d: Buffer) => {
    const parts = (rest + d.toString()).split('\n');
    rest = parts.pop()!;
    for (const p of parts) {
      if (!p.trim()) continue;
      const a = JSON.parse(p);
      answers.push(a);
      waiters.get(a.id)?.(a);
    }
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    stderr: () => err,
    answers,
    send: (line) => void child.stdin.write(`${line}\n`),
    waitFor: (id, ms = 20_000) => {
      const seen = answers.find((a) => a.id === id);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(undefined), ms);
        waiters.set(id, (a) => {
          clearTimeout(timer);
          resolve(a);
        });
      });
    },
    exited,
  };
}

/** Sends initialize and waits for its answer. */
export async function initialize(server: StdioServer): Promise<void> {
  server.send(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } } }));
  if (!(await server.waitFor('init', 60_000))) throw new Error(`no initialize answer; stderr: ${server.stderr()}`);
  server.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
}

/** The outcome of one stdio fuzz run. */
export interface FuzzReport {
  sent: number;
  expectedById: number;
  answeredById: number;
  expectedNull: number;
  answeredNull: number;
  unanswered: FuzzMessage[];
  elapsedMs: number;
}

/** Writes every message, then waits until each expected answer arrived (or `timeoutMs` passed). */
export async function fuzzStdio(server: StdioServer, messages: FuzzMessage[], timeoutMs = 60_000): Promise<FuzzReport> {
  const t0 = performance.now();
  const before = server.answers.length;
  const byId = messages.filter((m) => typeof m.expect === 'object');
  const expectedNull = messages.filter((m) => m.expect === 'null').length;
  // Write in slices so stdin backpressure is respected.
  for (let i = 0; i < messages.length; i += 200) {
    const ok = server.child.stdin.write(messages.slice(i, i + 200).map((m) => `${m.line}\n`).join(''));
    if (!ok) await new Promise((r) => server.child.stdin.once('drain', r));
  }
  const wanted = new Set(byId.map((m) => (m.expect as { id: string | number }).id));
  const deadline = Date.now() + timeoutMs;
  let nulls = 0;
  while (Date.now() < deadline) {
    nulls = server.answers.slice(before).filter((a) => a.id === null).length;
    const got = new Set(server.answers.slice(before).map((a) => a.id));
    if ([...wanted].every((id) => got.has(id)) && nulls >= expectedNull) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const got = new Set(server.answers.slice(before).map((a) => a.id));
  return {
    sent: messages.length,
    expectedById: wanted.size,
    answeredById: [...wanted].filter((id) => got.has(id)).length,
    expectedNull,
    answeredNull: nulls,
    unanswered: byId.filter((m) => !got.has((m.expect as { id: string | number }).id)),
    elapsedMs: performance.now() - t0,
  };
}

let probes = 0;

/** Times tools/list and a health call on a live server (ms each). */
export async function probeAlive(server: StdioServer): Promise<{ toolsListMs: number; healthMs: number; tools: number; healthOk: boolean }> {
  const n = ++probes;
  let t = performance.now();
  server.send(JSON.stringify({ jsonrpc: '2.0', id: `probe-list-${n}`, method: 'tools/list' }));
  const list = await server.waitFor(`probe-list-${n}`, 10_000);
  const toolsListMs = performance.now() - t;
  t = performance.now();
  server.send(JSON.stringify({ jsonrpc: '2.0', id: `probe-health-${n}`, method: 'tools/call', params: { name: 'health', arguments: { agent_id: 'probe' } } }));
  const health = await server.waitFor(`probe-health-${n}`, 10_000);
  const healthMs = performance.now() - t;
  return { toolsListMs, healthMs, tools: list?.result?.tools?.length ?? 0, healthOk: !!health?.result && health.result.isError !== true };
}
