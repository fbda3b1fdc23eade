/**
 * Every hook of a host generation, in one frozen table grouped by phase. A hook not declared here
 * does not exist. Each line names the tapable class and what a tap's return value does.
 * Built-in behaviour (gates, validation, agent tracking, result shaping, the envelope) is installed
 * as ordinary taps by core/builtin-taps.ts; plugins tap the same hooks under their own name.
 */
import {
  AsyncSeriesBailHook,
  AsyncSeriesHook,
  AsyncSeriesWaterfallHook,
  SyncHook,
  SyncWaterfallHook,
} from 'tapable';
import type { CallState, CallRefusal, CallOutcome } from './call-state.ts';
import type { TierTable } from './tiers.ts';
import type { VerbRecord } from './verb.ts';

/** What the boot phase tells taps about the generation that is about to serve. */
export interface BootInfo {
  generation: number;
  verbCount: number;
  plugins: string[];
}

/** What doctrine taps know when contributing to `initialize.instructions`. */
export interface DoctrineInfo {
  tier: string;
  advertised: ReadonlySet<string>;
  readOnly: boolean;
}

/** A named sequence of verbs `help` shows in workflow mode. */
export interface Workflow {
  name: string;
  /** When to use it, one line. */
  when: string;
  steps: { verb: string; why: string }[];
}

/** Builds the hook table of one host generation. */
export function createHooks() {
  return Object.freeze({
    // ── boot ──────────────────────────────────────────────────────────────────────────────
    /** AsyncSeriesHook<[BootInfo]>: every plugin applied and the catalog compiled; start services. Return ignored. */
    boot: new AsyncSeriesHook<[BootInfo]>(['info']),
    /** SyncHook<[]>: a client finished `initialize` (or a first call arrived): start background work (loading stores). Return ignored. */
    ready: new SyncHook<[]>([]),

    // ── register ──────────────────────────────────────────────────────────────────────────
    /** SyncWaterfallHook<[VerbRecord]>: each registration passes through; return the record (adjusted or not). */
    registerVerb: new SyncWaterfallHook<[VerbRecord]>(['verb']),

    // ── list ──────────────────────────────────────────────────────────────────────────────
    /** SyncWaterfallHook<[TierTable]>: tier curation (bundles add/remove verbs, define tiers); return the table. */
    tiers: new SyncWaterfallHook<[TierTable]>(['table']),
    /** SyncWaterfallHook<[string[], DoctrineInfo]>: doctrine sections for `instructions`; return the list with yours added. */
    doctrine: new SyncWaterfallHook<[string[], DoctrineInfo]>(['sections', 'info']),
    /** SyncWaterfallHook<[Workflow[]]>: verb sequences for `help` workflow mode; return the list with yours added. */
    workflows: new SyncWaterfallHook<[Workflow[]]>(['workflows']),
    /** AsyncSeriesWaterfallHook<[Record<string, unknown>]>: sections of the health report; return the report. */
    health: new AsyncSeriesWaterfallHook<[Record<string, unknown>]>(['report']),

    // ── call ──────────────────────────────────────────────────────────────────────────────
    /** AsyncSeriesBailHook<[CallState], CallRefusal>: gates by stage (read-only, proof, validation); a refusal ends the call. */
    gate: new AsyncSeriesBailHook<[CallState], CallRefusal | undefined>(['call']),
    /** AsyncSeriesHook<[CallState]>: after every gate, before the handler (agent tracking, freshness ticks). Return ignored. */
    beforeCall: new AsyncSeriesHook<[CallState]>(['call']),
    /** AsyncSeriesWaterfallHook<[unknown, CallState]>: shapes the handler's result (token limit); return the result. */
    shapeResult: new AsyncSeriesWaterfallHook<[unknown, CallState]>(['result', 'call']),
    /** SyncWaterfallHook<[unknown, CallState]>: decorates the final result (the `_m1nd` envelope); return it. */
    decorateResult: new SyncWaterfallHook<[unknown, CallState]>(['result', 'call']),
    /** SyncHook<[CallState, CallOutcome]>: observes every finished call, refused or failed ones too. Return ignored. */
    afterCall: new SyncHook<[CallState, CallOutcome]>(['call', 'outcome']),

    // ── shutdown ──────────────────────────────────────────────────────────────────────────
    /**
     * AsyncSeriesHook<[]>: the generation is retired or the server stops; close stores and watchers.
     * Return ignored. Runs in the reverse of plugin load order (a plugin before those it requires).
     */
    shutdown: new AsyncSeriesHook<[]>([]),
  });
}

export type HostHooks = ReturnType<typeof createHooks>;
export type HookName = keyof HostHooks;

/** Stages of the built-in gate taps: lower runs first; plugin gates default to stage 0 (after these). */
export const GATE_STAGES = Object.freeze({ readOnly: -300, proof: -200, validation: -100 });
