/**
 * The host's MCP resources and prompts: the repository's doctrine file (watched for subscribers),
 * each verb's documentation, and the help workflows as prompts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, M1ndError, type CatalogView, type PluginContext, type PromptMessage, type ResourceDefinition, type PromptDefinition } from '../../core/index.ts';
import { describeVerb } from './help-modes.ts';
import { renderHelp } from './help-render.ts';

/** Doctrine files agents' tools read, in the order m1nd looks for them. */
export const DOCTRINE_FILES = ['AGENTS.md', 'CLAUDE.md', '.cursorrules'] as const;
/** Largest doctrine file served whole. */
const MAX_DOCTRINE_BYTES = 512 * 1024;

/** The first doctrine file present in the workspace, or undefined. */
export function findDoctrine(root: string): string | undefined {
  return DOCTRINE_FILES.find((name) => {
    try {
      return fs.statSync(path.join(root, name)).isFile();
    } catch {
      return false;
    }
  });
}

/** `m1nd://doctrine`: the repository's own rules for agents (AGENTS.md, else CLAUDE.md, else .cursorrules). */
export function doctrineResource(ctx: PluginContext): ResourceDefinition {
  const root = ctx.settings.workspaceRoot;
  return {
    uri: 'm1nd://doctrine',
    name: 'doctrine',
    title: 'Repository doctrine',
    description: `The workspace's rules for agents: the first of ${DOCTRINE_FILES.join(', ')}`,
    mimeType: 'text/markdown',
    list: () => {
      const file = findDoctrine(root);
      return file ? [{ uri: 'm1nd://doctrine', name: 'doctrine', title: file, description: `${file} of the workspace`, mimeType: 'text/markdown' }] : [];
    },
    read: () => {
      const file = findDoctrine(root);
      if (!file) return undefined;
      const abs = path.join(root, file);
      // The file itself must stay inside the workspace (a symlink out of it is not served).
      const real = fs.realpathSync(abs);
      const realRoot = fs.realpathSync(root);
      if (real !== path.join(realRoot, file) && !real.startsWith(realRoot + path.sep)) return undefined;
      const size = fs.statSync(real).size;
      const text = size > MAX_DOCTRINE_BYTES ? `${readPrefix(real, MAX_DOCTRINE_BYTES)}\n\n[… ${file} continues: ${size} bytes in all]` : fs.readFileSync(real, 'utf8');
      return { text };
    },
    watch: (_vars, changed) => {
      // The folder, not a file: the doctrine may not exist yet, or be replaced by an atomic rename.
      let watcher: fs.FSWatcher | undefined;
      try {
        watcher = fs.watch(root, { persistent: false }, (_event, name) => {
          if (name && (DOCTRINE_FILES as readonly string[]).includes(String(name))) changed();
        });
        watcher.on('error', () => undefined);
      } catch {
        return () => undefined;
      }
      return () => watcher?.close();
    },
  };
}

function readPrefix(file: string, bytes: number): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const n = fs.readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** `m1nd://verbs/{name}`: one verb's documentation as markdown (every registered verb, advertised or not). */
export function verbDocResource(catalog: CatalogView): ResourceDefinition {
  return {
    uri: 'm1nd://verbs/{name}',
    name: 'verb-doc',
    title: 'Verb documentation',
    description: "A verb's parameters, effect, tiers and a minimal call",
    mimeType: 'text/markdown',
    read: ({ name }) => {
      if (!catalog.get(name)) return undefined;
      return { text: renderHelp('tool', describeVerb(catalog, name, 3), false) };
    },
    complete: { name: (prefix) => catalog.records().map((r) => r.name).filter((n) => n.startsWith(prefix)).sort() },
  };
}

/**
 * `workflow`: a help workflow (verb sequences plugins contribute) as instructions, with the caller's
 * task quoted in. One prompt with a `name` argument, completed from the workflows of the serving
 * generation, so workflows added by later plugins or a reload need no new registration.
 */
export function workflowPrompt(catalog: CatalogView): PromptDefinition {
  const find = (name: string) => catalog.workflows().find((w) => w.name === name);
  return {
    name: 'workflow',
    title: 'm1nd workflow',
    description: 'Steps for a task with m1nd (first contact, recover, investigate, change safely, …)',
    arguments: [
      { name: 'name', description: 'Workflow name (completion lists them)', required: true, complete: (prefix) => catalog.workflows().map((w) => w.name).filter((n) => n.startsWith(prefix)) },
      { name: 'task', description: 'What you are working on (quoted into the instructions)' },
    ],
    get: ({ name, task }) => {
      const w = find(name);
      if (!w) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `no workflow "${name}"`, { hint: `one of: ${catalog.workflows().map((x) => x.name).join(', ')}` });
      const steps = w.steps.map((s, i) => `${i + 1}. \`${s.verb}\`${catalog.get(s.verb) ? '' : ' (not registered on this server)'} — ${s.why}`);
      const text = [`Use the m1nd MCP server's "${w.name}" workflow${task ? ` for this task: ${task}` : ''}.`, `When: ${w.when}.`, 'Steps:', ...steps, 'Call `help` with {"tool_name":"<verb>"} for any verb\'s parameters.'].join('\n');
      const message: PromptMessage = { role: 'user', content: { type: 'text', text } };
      return [message];
    },
  };
}
