/** The graph-analysis verbs of the core family (activate, impact, why, …), one file each. */
import type { VerbDefinition } from '../../../core/index.ts';

export const analysisVerbs: VerbDefinition<any>[] = [];
