/**
 * The `history` service: the workspace's mined git history (kept up to date with HEAD, incremental)
 * and its index, the static file dependencies the predictors use, and the stored calibration.
 */
import type { CallContext } from '../../core/index.ts';
import type { CodeGraphEngine, GraphService } from '../graph/api.ts';
import type { Calibration } from './calibration.ts';
import { HistoryIndex, type SweepRules } from './history-index.ts';
import type { FederatedHistorySource } from './federated-history.ts';
import { HISTORY_NAMESPACE, HistoryMiner, type MineReport } from './miner.ts';

/** The history as a verb sees it. */
export interface HistoryView {
  index: HistoryIndex;
  mined: MineReport;
}

/** What the history family's verbs share. */
export interface HistoryService {
  readonly graph: GraphService;
  /** The workspace's miner and settings, shared with the federated view's merged history (federated-history.ts). */
  readonly federation: FederatedHistorySource;
  /** Mines new commits (if HEAD moved) and returns the indexed history. */
  current(): Promise<HistoryView>;
  /** Recency half-life for an index: a tenth of its span, between 14 and 180 days. */
  halfLife(index: HistoryIndex): number;
  calibration(): Calibration | null;
  /** Stores a calibration (in memory only on a read-only server); true when it reached the store. */
  saveCalibration(cal: Calibration): boolean;
}

/** Settings of the family (plugin options). */
export interface HistorySettings {
  maxCommits: number;
  sweep: SweepRules;
}

const DAY = 86_400;
const CALIBRATION_KEY = 'calibration';

/** Creates the service for the graph's workspace. */
export function createHistoryService(graph: GraphService, settings: HistorySettings): HistoryService {
  const engine: CodeGraphEngine = graph.engine;
  const memory = () => (engine.storeExists() ? engine.memory : null);
  const miner = new HistoryMiner(engine.root, memory, graph.writable, { maxCommits: settings.maxCommits });
  let built: { version: number; index: HistoryIndex; count: number; first: string | undefined; last: string | undefined } | null = null;
  let building: Promise<HistoryIndex> | null = null;
  let localCalibration: Calibration | null = null;
  return {
    graph,
    federation: { miner, maxCommits: settings.maxCommits, sweep: settings.sweep, writable: graph.writable },
    async current() {
      const mined = await miner.update();
      if (built?.version !== miner.version) {
        const version = miner.version;
        const log = miner.log();
        building ??= (async () => {
          // New commits on top of the indexed ones (no rename among them): append instead of rebuilding.
          const b = built;
          if (b && log.length > b.count && log[0]?.hash === b.first && log[b.count - 1]?.hash === b.last && (await b.index.append(log.slice(b.count)))) return b.index;
          return HistoryIndex.build(log, settings.sweep);
        })().finally(() => (building = null));
        const index = await building;
        built = { version, index, count: log.length, first: log[0]?.hash, last: log.at(-1)?.hash };
      }
      return { index: built.index, mined };
    },
    halfLife(index) {
      return Math.min(180 * DAY, Math.max(14 * DAY, (index.newest - index.oldest) * 0.1));
    },
    calibration() {
      return localCalibration ?? memory()?.get<Calibration>(HISTORY_NAMESPACE, CALIBRATION_KEY)?.value ?? null;
    },
    saveCalibration(cal) {
      localCalibration = cal;
      const mem = graph.writable ? memory() : null;
      if (!mem) return false;
      mem.set(HISTORY_NAMESPACE, CALIBRATION_KEY, cal);
      return true;
    },
  };
}

/** The history service of the calling generation. */
export function historyOf(call: CallContext): HistoryService {
  return call.service<HistoryService>('history');
}
