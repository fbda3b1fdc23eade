/** The graph-analysis verbs of the core family (activate, impact, why, …), one file each. */
import type { VerbDefinition } from '../../../core/index.ts';
import { activateVerb } from './activate.ts';
import { counterfactualVerb } from './counterfactual.ts';
import { crossVerifyVerb } from './cross_verify.ts';
import { diagramVerb } from './diagram.ts';
import { driftVerb } from './drift.ts';
import { fingerprintVerb } from './fingerprint.ts';
import { focusVerb } from './focus.ts';
import { impactVerb } from './impact.ts';
import { learnVerb } from './learn.ts';
import { missingVerb } from './missing.ts';
import { typeTraceVerb } from './type_trace.ts';
import { warmupVerb } from './warmup.ts';
import { whyVerb } from './why.ts';

export const analysisVerbs: VerbDefinition<any>[] = [
  activateVerb,
  impactVerb,
  whyVerb,
  missingVerb,
  warmupVerb,
  counterfactualVerb,
  fingerprintVerb,
  driftVerb,
  learnVerb,
  focusVerb,
  typeTraceVerb,
  diagramVerb,
  crossVerifyVerb,
];
