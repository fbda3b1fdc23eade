// Shapes of the dashboard API (docs/dashboard.md, section API). Fields the UI does not need are left out.

export interface Overview {
  workspace: string;
  server: { version: string; read_only: boolean; tier: string; transport: string; can_write?: boolean };
  graph: { state: 'loading' | 'ready' | 'empty'; nodes: number; edges: number; files: number; last_ingest_at?: string | number | null; stale_files: number };
  verbs: { registered: number; advertised: number };
  plugins: { name: string; version?: string; status: string; reason?: string }[];
  store: { kind: string; path_or_url_redacted?: string; error?: string };
  recent_errors: { at: string | number; agent?: string; verb: string; code: string; message: string }[];
}

export interface CallRow {
  at: string | number;
  verb: string;
  ms: number;
  outcome: 'ok' | 'refused' | 'error';
  tokens?: number;
}

export interface AgentStats {
  agent_id: string;
  calls: number;
  refusals: number;
  errors: number;
  tokens_returned: number;
  p50_ms: number;
  p99_ms: number;
  by_verb: { verb: string; calls: number; p50_ms: number; p99_ms: number; tokens: number }[];
  last_calls: CallRow[];
}

export interface Agents {
  sessions: { session_id: string; agent_id?: string | null; transport: string; connected_at: string | number; last_seen_at?: string | number; calls: number }[];
  agents: AgentStats[];
}

export interface Claim {
  id: string;
  text: string;
  scope: string;
  author: string;
  created_at: string | number;
  evidence: { path: string; node_id?: string; line?: number | null; end_line?: number | null }[];
  freshness: { state: 'fresh' | 'stale' | 'unknown'; changed: { path: string; what: string }[] };
}

export interface Mission {
  id: string;
  title: string;
  status: string;
  owner: string;
  mode?: string;
  budget?: unknown;
  events: { at: string | number; kind: string; text: string }[];
}

export interface Memory {
  claims: Claim[];
  missions: Mission[];
}

export interface Lock {
  id: string;
  owner: string;
  scope: string;
  paths: string[];
  node_ids: string[];
  created_at: string | number;
  expires_at?: string | number | null;
  overlaps: string[];
}

export interface Alert {
  id: string;
  severity: string;
  source: string;
  kind: string;
  message: string;
  subject?: string;
  at: string | number;
  acked_by: string[];
  status?: string;
}

export interface GraphNode {
  id: string;
  label: string;
  kind: string;
  file?: string;
  line?: number | null;
  role?: Role;
}

export type Role = 'center' | 'caller' | 'callee' | 'importer' | 'imported' | 'test' | 'other';

export interface Neighbourhood {
  center: GraphNode;
  nodes: GraphNode[];
  edges: { source: string; target: string; relation: string }[];
  truncated?: boolean;
}

export interface FileView {
  path: string;
  start_line: number;
  lines: string[];
  language?: string;
}

export interface ImpactResult {
  node: { id: string; label: string; kind: string; path: string };
  affected: number;
  other_files: number;
  direct: { id: string; relation: string; confidence?: number; line?: number | null }[];
  transitive: { count: number; entries: { id: string; depth: number; signal?: number }[] };
}

export interface WhyResult {
  source: { id: string; label: string };
  target: { id: string; label: string };
  found: boolean;
  note?: string;
  paths: { hops: number; strength: number; line?: string; steps: { from: string; relation: string; to: string; direction: string; says?: string }[] }[];
}
