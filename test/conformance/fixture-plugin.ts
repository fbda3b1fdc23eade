/**
 * The conformance suite's fixture tools, resources and prompts (test_image_content,
 * test://static-text, test_simple_prompt, …), registered by an ordinary plugin through the public
 * API, the way a team would add its own: content blocks through `toolContent`, log messages to the
 * caller through `ctx.notify`, progress through `ctx.progress`. Loaded only for the conformance
 * run: it proves the host serves these capabilities end to end.
 */
import { defineVerb, definePlugin, toolContent, Type, type PromptMessage } from '../../core/index.ts';

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** A WAV file of 8 silent 8-bit mono samples at 8 kHz (RIFF header + data). */
function silentWav(): string {
  const samples = 8;
  const b = Buffer.alloc(44 + samples, 0x80);
  b.write('RIFF', 0, 'ascii');
  b.writeUInt32LE(36 + samples, 4);
  b.write('WAVEfmt ', 8, 'ascii');
  b.writeUInt32LE(16, 16); // fmt chunk size
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(8000, 24); // sample rate
  b.writeUInt32LE(8000, 28); // byte rate
  b.writeUInt16LE(1, 32); // block align
  b.writeUInt16LE(8, 34); // bits per sample
  b.write('data', 36, 'ascii');
  b.writeUInt32LE(samples, 40);
  return b.toString('base64');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NoArgs = Type.Object({});
const Address = Type.Object({ street: Type.Optional(Type.String({ maxLength: 200 })), city: Type.Optional(Type.String({ maxLength: 200 })) });

/** The fixture tools the suite's tools-call-* and json-schema-2020-12 scenarios call. */
const tools = [
  defineVerb({ name: 'test_image_content', description: 'Returns an image.', input: NoArgs, effect: 'read', handler: () => toolContent({ type: 'image', data: PNG, mimeType: 'image/png' }) }),
  defineVerb({ name: 'test_audio_content', description: 'Returns audio.', input: NoArgs, effect: 'read', handler: () => toolContent({ type: 'audio', data: silentWav(), mimeType: 'audio/wav' }) }),
  defineVerb({
    name: 'test_embedded_resource',
    description: 'Returns an embedded resource.',
    input: NoArgs,
    effect: 'read',
    handler: () => toolContent({ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }),
  }),
  defineVerb({
    name: 'test_multiple_content_types',
    description: 'Returns text, an image and a resource.',
    input: NoArgs,
    effect: 'read',
    handler: () =>
      toolContent([
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
      ]),
  }),
  defineVerb({
    name: 'test_tool_with_logging',
    description: 'Sends three log messages to the caller while it runs.',
    input: NoArgs,
    effect: 'read',
    handler: async (_args, ctx) => {
      await ctx.notify('info', 'Tool execution started');
      await sleep(50);
      await ctx.notify('info', 'Tool processing data');
      await sleep(50);
      await ctx.notify('info', 'Tool execution completed');
      return 'Tool with logging executed successfully';
    },
  }),
  defineVerb({
    name: 'test_tool_with_progress',
    description: 'Reports progress 0, 50, 100 of 100.',
    input: NoArgs,
    effect: 'read',
    handler: async (_args, ctx) => {
      await ctx.progress(0, 100);
      await sleep(50);
      await ctx.progress(50, 100);
      await sleep(50);
      await ctx.progress(100, 100);
      return 'Tool with progress executed successfully';
    },
  }),
  defineVerb({
    name: 'test_reconnection',
    description: 'Closes its SSE stream mid-call; the result arrives after the client resumes.',
    input: NoArgs,
    effect: 'read',
    handler: async (_args, ctx) => {
      // The client reconnects after the retry interval with Last-Event-ID; the result waits in the event store.
      const closed = ctx.closeStream();
      await sleep(100);
      return closed ? 'Reconnection test completed: the stream was closed and resumed' : 'Reconnection test completed (this transport cannot resume, the stream stayed open)';
    },
  }),
  defineVerb({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    // $schema, $defs and additionalProperties survive into tools/list as written (SEP-1613). The
    // address is spelled inline as well as in $defs: the validator compiles TypeBox kinds, not a $ref.
    input: Type.Object(
      { name: Type.Optional(Type.String({ maxLength: 200 })), address: Type.Optional(Address) },
      { $schema: 'https://json-schema.org/draft/2020-12/schema', $defs: { address: Address }, additionalProperties: false },
    ),
    effect: 'read',
    handler: (args) => ({ received: args }),
  }),
];

export default definePlugin({
  name: 'conformance-fixtures',
  version: '0.1.0',
  description: 'Fixture tools, resources and prompts named by the MCP conformance suite.',
  apply(ctx) {
    // Advertised in the default tier: the suite looks for them in tools/list.
    for (const tool of tools) ctx.registerVerb({ ...tool, tiers: ['essential'] });
    ctx.registerResource({ uri: 'test://static-text', name: 'static-text', description: 'A fixed text resource', mimeType: 'text/plain', read: () => ({ text: 'This is the content of the static text resource.' }) });
    ctx.registerResource({ uri: 'test://static-binary', name: 'static-binary', description: 'A fixed binary resource', mimeType: 'image/png', read: () => ({ blob: PNG }) });
    ctx.registerResource({ uri: 'test://template/{id}/data', name: 'template-data', description: 'A templated resource', mimeType: 'application/json', read: ({ id }) => ({ text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }) });
    ctx.registerResource({ uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource to subscribe to', mimeType: 'text/plain', read: () => ({ text: 'Watched resource content' }) });
    ctx.registerResource({ uri: 'test://example-resource', name: 'example-resource', description: 'Embedded by a prompt', mimeType: 'text/plain', read: () => ({ text: 'Example resource content' }) });
    const text = (t: string): PromptMessage => ({ role: 'user', content: { type: 'text', text: t } });
    ctx.registerPrompt({ name: 'test_simple_prompt', description: 'A prompt without arguments', get: () => [text('This is a simple prompt for testing.')] });
    ctx.registerPrompt({
      name: 'test_prompt_with_arguments',
      description: 'A prompt with arguments',
      arguments: [
        { name: 'arg1', description: 'First argument', required: true, complete: (p) => ['test', 'testing', 'value'].filter((v) => v.startsWith(p)) },
        { name: 'arg2', description: 'Second argument', required: true },
      ],
      get: ({ arg1, arg2 }) => [text(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)],
    });
    ctx.registerPrompt({
      name: 'test_prompt_with_embedded_resource',
      description: 'A prompt embedding a resource',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
      get: ({ resourceUri }) => [
        { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
        text('Please process the embedded resource above.'),
      ],
    });
    ctx.registerPrompt({ name: 'test_prompt_with_image', description: 'A prompt with an image', get: () => [{ role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } }, text('Please analyze the image above.')] });
  },
});
