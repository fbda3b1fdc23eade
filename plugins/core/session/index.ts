/** The session verbs of the core family (am_i_stale, coverage_session, report, …), one file each. */
import type { VerbDefinition } from '../../../core/index.ts';
import { amIStaleVerb } from './am_i_stale.ts';
import { coverageSessionVerb } from './coverage_session.ts';
import { reportVerb } from './report.ts';

export const sessionVerbs: VerbDefinition<any>[] = [amIStaleVerb, coverageSessionVerb, reportVerb];
