/** The session verbs of the core family (am_i_stale, coverage_session, report, …), one file each. */
import type { VerbDefinition } from '../../../core/index.ts';

export const sessionVerbs: VerbDefinition<any>[] = [];
