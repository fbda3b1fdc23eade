/**
 * The structure family: the shape of the code and the rules a team wants it to keep — layers
 * inferred from topology, pattern scans over the code itself (tree-sitter queries plus graph
 * conditions), structural twins, taint paths, and community-based refactor plans.
 */
import { definePlugin } from '../../core/index.ts';
import { layersVerb } from './verbs/layers.ts';
import { layerInspectVerb } from './verbs/layer_inspect.ts';

export default definePlugin({
  name: 'structure',
  version: '0.1.0',
  description: 'Structure: layers, pattern scans, twins, taint paths, refactor plans.',
  requires: ['graph'],
  apply(ctx) {
    ctx.registerVerb(layersVerb);
    ctx.registerVerb(layerInspectVerb);
  },
});
