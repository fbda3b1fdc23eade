/**
 * The documents family: documents beyond Markdown (reStructuredText, text; PDF, HTML and DOCX through
 * optional npm converters loaded on first use) turned into canonical Markdown, the code they name
 * bound in the graph, and drift between the two. State lives in the workspace store (document-book.ts).
 */
import { definePlugin, Type } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import { DEFAULT_LIMITS, setConversionLimits } from './convert/runner.ts';
import { documentNodes } from './graph-nodes.ts';
import { documentBindingsVerb } from './verbs/document_bindings.ts';
import { documentDriftVerb } from './verbs/document_drift.ts';
import { documentProviderHealthVerb } from './verbs/document_provider_health.ts';
import { documentResolveVerb } from './verbs/document_resolve.ts';

const Options = Type.Object({
  convertTimeoutMs: Type.Integer({ minimum: 100, default: DEFAULT_LIMITS.timeoutMs, description: 'Time a PDF/HTML/DOCX conversion may take (its worker thread is stopped past it)' }),
  convertMaxHeapMb: Type.Integer({ minimum: 64, default: DEFAULT_LIMITS.maxHeapMb, description: 'Heap of a conversion worker thread' }),
  convertWorkerIdleMs: Type.Integer({ minimum: 0, default: DEFAULT_LIMITS.idleMs, description: 'Time an idle conversion worker is kept for the next document before it is stopped' }),
});

export default definePlugin<{ convertTimeoutMs: number; convertMaxHeapMb: number; convertWorkerIdleMs: number }>({
  name: 'documents',
  version: '0.1.0',
  description: 'Universal documents: converters, canonical Markdown, document-to-code bindings and drift.',
  requires: ['graph'],
  options: Options,
  apply(ctx) {
    setConversionLimits({ timeoutMs: ctx.options.convertTimeoutMs, maxHeapMb: ctx.options.convertMaxHeapMb, idleMs: ctx.options.convertWorkerIdleMs });
    ctx.registerVerb(documentProviderHealthVerb);
    ctx.registerVerb(documentResolveVerb);
    ctx.registerVerb(documentBindingsVerb);
    ctx.registerVerb(documentDriftVerb);
    // Converted documents' nodes follow the graph: re-applied (bindings recomputed) after it changed, before each call.
    const graph = ctx.service<GraphService>('graph');
    // A callback tap: a call finding the documents linked to the graph as it is passes synchronously.
    const warn = (error: Error) => ctx.log.warn(`converted documents not re-linked in the graph: ${error.message}`);
    ctx.hooks.beforeCall.tapAsync('documents', (_call, done) => {
      const nodes = documentNodes(graph);
      if (nodes.upToDate()) return done();
      nodes.ensure().then(() => done(), (error: Error) => {
        warn(error);
        done();
      });
    });
    ctx.hooks.workflows.tap('documents', (list) => [
      ...list,
      {
        name: 'check a document against the code',
        when: 'a design doc, PDF spec or HTML page describes code that may have moved on',
        steps: [
          { verb: 'document_provider_health', why: 'which formats can be read here' },
          { verb: 'document_bindings', why: 'the paths, symbols and commands it names, resolved in the graph' },
          { verb: 'document_drift', why: 'links whose targets changed, vanished or are ambiguous' },
        ],
      },
    ]);
  },
});
