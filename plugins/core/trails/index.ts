/** The trail_ verbs of the core family (saved investigations), one file each. */
import type { VerbDefinition } from '../../../core/index.ts';

export const trailVerbs: VerbDefinition<any>[] = [];
