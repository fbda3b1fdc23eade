/** The trail_ verbs of the core family (saved investigations), one file each. */
import type { VerbDefinition } from '../../../core/index.ts';
import { trailSaveVerb } from './trail_save.ts';
import { trailResumeVerb } from './trail_resume.ts';
import { trailMergeVerb } from './trail_merge.ts';
import { trailListVerb } from './trail_list.ts';

export const trailVerbs: VerbDefinition<any>[] = [trailSaveVerb, trailResumeVerb, trailMergeVerb, trailListVerb];
