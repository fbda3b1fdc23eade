import { createContext } from 'preact';
import type { Overview } from './types.ts';

/** The last overview answer (server mode, tier…), for views that depend on it. */
export const ServerInfo = createContext<Overview | undefined>(undefined);
