/**
 * The conformance suite's fixture resources and prompts (test://static-text, test_simple_prompt, …),
 * registered by an ordinary plugin through the public API, the way a team would add its own. Loaded
 * only for the conformance run: it proves the host serves these capabilities end to end.
 */
import { definePlugin, type PromptMessage } from '../../core/index.ts';

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export default definePlugin({
  name: 'conformance-fixtures',
  version: '0.1.0',
  description: 'Fixture resources and prompts named by the MCP conformance suite.',
  apply(ctx) {
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
