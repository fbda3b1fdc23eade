// The neighbourhood as an interactive Cytoscape graph. Cytoscape is loaded on first use (its own
// chunk). Roles are told apart by colour and by shape; the node list beside the canvas carries the
// same nodes for keyboard and screen-reader use.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Core, ElementDefinition } from 'cytoscape';
import type { Neighbourhood, Role } from '../types.ts';
import { tail } from '../format.ts';

export const ROLE_STYLE: Record<Role, { color: string; shape: string; label: string }> = {
  center: { color: '#1d4ed8', shape: 'star', label: 'centre' },
  caller: { color: '#c2410c', shape: 'round-triangle', label: 'caller' },
  callee: { color: '#15803d', shape: 'round-rectangle', label: 'callee' },
  importer: { color: '#7e22ce', shape: 'diamond', label: 'importer' },
  imported: { color: '#0f766e', shape: 'hexagon', label: 'imported' },
  test: { color: '#be123c', shape: 'vee', label: 'test' },
  other: { color: '#57534e', shape: 'ellipse', label: 'other' },
};

/** What to draw over the neighbourhood: impact (dependents) or why (paths). */
export interface Overlay {
  kind: 'impact' | 'why';
  /** Node ids to mark, with a level (1 = direct / on the best path, 2 = further). */
  nodes: Map<string, number>;
  /** Edges to add or mark (source → target). */
  edges: { source: string; target: string; relation: string }[];
}

// Cytoscape adds a <style> element to <head> unless one with this id exists; the page's CSP forbids
// inline styles, so the rule it would add (`position: relative`) lives in styles.css and this marker
// tells Cytoscape it is there.
const CY_STYLESHEET_ID = '__________cytoscape_stylesheet';
function markStylesheet(): void {
  if (document.getElementById(CY_STYLESHEET_ID)) return;
  const marker = document.createElement('meta');
  marker.id = CY_STYLESHEET_ID;
  marker.name = 'cytoscape-stylesheet';
  marker.content = 'in styles.css';
  document.head.append(marker);
}

function elements(n: Neighbourhood, overlay: Overlay | undefined): ElementDefinition[] {
  const out: ElementDefinition[] = [];
  const ids = new Set<string>();
  for (const node of n.nodes) {
    if (ids.has(node.id)) continue;
    ids.add(node.id);
    const role = node.id === n.center.id ? 'center' : (node.role ?? 'other');
    out.push({ group: 'nodes', data: { id: node.id, label: node.label || tail(node.id), role} });
  }
  if (!ids.has(n.center.id)) {
    ids.add(n.center.id);
    out.push({ group: 'nodes', data: { id: n.center.id, label: n.center.label || tail(n.center.id), role: 'center' } });
  }
  const edgeKey = (s: string, t: string, r: string) => `${s}\u0000${t}\u0000${r}`;
  const edgeIds = new Set<string>();
  const addEdge = (source: string, target: string, relation: string, cls?: string) => {
    const key = edgeKey(source, target, relation);
    if (edgeIds.has(key)) return;
    edgeIds.add(key);
    out.push({ group: 'edges', data: { id: `e${edgeIds.size}`, source, target, relation }, classes: cls });
  };
  for (const e of n.edges) if (ids.has(e.source) && ids.has(e.target)) addEdge(e.source, e.target, e.relation);
  if (overlay) {
    const mark = overlay.kind === 'impact' ? 'impacted' : 'path';
    for (const [id] of overlay.nodes)
      if (!ids.has(id)) {
        ids.add(id);
        out.push({ group: 'nodes', data: { id, label: tail(id), role: 'other' }, classes: 'added' });
      }
    for (const e of overlay.edges) if (ids.has(e.source) && ids.has(e.target)) addEdge(e.source, e.target, e.relation, mark);
    for (const el of out)
      if (el.group === 'nodes') {
        const level = overlay.nodes.get(String(el.data.id));
        if (level !== undefined) el.classes = `${el.classes ?? ''} ${mark} ${mark}-${level}`.trim();
      } else if (el.classes !== mark) {
        // Edges of the path walked against their direction are marked too.
        const hit = overlay.edges.some((e) => (e.source === el.data.source && e.target === el.data.target) || (e.source === el.data.target && e.target === el.data.source));
        if (hit) el.classes = mark;
      }
  }
  return out;
}

/**
 * Where each role sits around the centre (degrees, 0 = right, clockwise): callers on the left, callees
 * on the right, importers and imported files above, tests and the rest below. Reading direction
 * follows the calls: caller → centre → callee.
 */
const SECTORS: Record<Role, [number, number]> = {
  center: [0, 0],
  caller: [140, 220],
  callee: [-40, 40],
  importer: [225, 265],
  imported: [275, 315],
  // Tests and the rest share the lower arc, tests first (left to right from the callers' side).
  test: [140, 40],
  other: [140, 40],
};

/** A radial layout by role: each role's nodes spread over its sector, on two rings when crowded. */
function rolePositions(c: Core, centerId: string): Record<string, { x: number; y: number }> {
  const byRole = new Map<Role, string[]>();
  c.nodes().forEach((n) => {
    if (n.id() === centerId) return;
    const role = (n.data('role') as Role) in SECTORS ? (n.data('role') as Role) : 'other';
    if (!byRole.has(role)) byRole.set(role, []);
    byRole.get(role)!.push(n.id());
  });
  // One group per sector: the rest join the tests below.
  if (byRole.has('other')) {
    byRole.set('test', [...(byRole.get('test') ?? []), ...byRole.get('other')!]);
    byRole.delete('other');
  }
  // A wide canvas gets a wide ellipse: the width is used instead of left empty.
  const stretch = Math.min(2.5, Math.max(1, c.width() / Math.max(1, c.height())));
  const out: Record<string, { x: number; y: number }> = { [centerId]: { x: 0, y: 0 } };
  for (const [role, ids] of byRole) {
    const [from, to] = SECTORS[role];
    const span = (Math.abs(to - from) * Math.PI) / 180;
    // Room for about 46 px of arc per node, spread over two rings past a dozen.
    const rings = ids.length > 12 ? 2 : 1;
    const radius = Math.max(110, (46 * Math.ceil(ids.length / rings)) / span);
    ids.forEach((id, i) => {
      const a = ((from + ((i + 0.5) * (to - from)) / ids.length) * Math.PI) / 180;
      const r = radius + (rings > 1 && i % 2 ? 70 : 0);
      out[id] = { x: Math.cos(a) * r * stretch, y: Math.sin(a) * r };
    });
  }
  return out;
}

/**
 * Zooms so every node fits while the centre node sits in the middle of the canvas (a plain fit
 * centres the bounding box, which moves the centre node off-centre when the sectors fill unevenly).
 */
function frameAround(c: Core, centerId: string): void {
  const center = c.getElementById(centerId);
  if (center.empty()) {
    c.fit(undefined, 30);
    return;
  }
  const at = center.position();
  // Half-widths around the centre, with room for the labels under and beside the nodes.
  let dx = 40;
  let dy = 40;
  c.nodes().forEach((n) => {
    const p = n.position();
    dx = Math.max(dx, Math.abs(p.x - at.x) + 50);
    dy = Math.max(dy, Math.abs(p.y - at.y) + 30);
  });
  const zoom = Math.min(1.6, Math.max(0.2, Math.min((c.width() / 2 - 10) / dx, (c.height() / 2 - 10) / dy)));
  c.viewport({ zoom, pan: { x: c.width() / 2 - at.x * zoom, y: c.height() / 2 - at.y * zoom } });
}

export function GraphCanvas({
  neighbourhood,
  overlay,
  selected,
  onSelect,
  onCenter,
}: {
  neighbourhood: Neighbourhood;
  overlay: Overlay | undefined;
  selected: string | undefined;
  onSelect: (id: string) => void;
  onCenter: (id: string) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const cy = useRef<Core | undefined>(undefined);
  const handlers = useRef({ onSelect, onCenter });
  handlers.current = { onSelect, onCenter };
  const [ready, setReady] = useState(false);
  const [failed, setFailed] = useState<string | undefined>(undefined);

  useEffect(() => {
    let dead = false;
    markStylesheet();
    import('cytoscape')
      .then(({ default: cytoscape }) => {
        if (dead || !box.current) return;
        const instance = cytoscape({
          container: box.current,
          elements: [],
          minZoom: 0.2,
          maxZoom: 3,
          boxSelectionEnabled: false,
          style: [
            { selector: 'node', style: { label: 'data(label)', 'font-size': 11, color: '#111827', 'text-valign': 'bottom', 'text-margin-y': 3, 'text-background-color': '#ffffff', 'text-background-opacity': 0.8, 'text-background-padding': '1px', width: 22, height: 22, 'background-color': ROLE_STYLE.other.color, shape: 'ellipse', 'border-width': 0 } },
            ...Object.entries(ROLE_STYLE).map(([role, s]) => ({ selector: `node[role = "${role}"]`, style: { 'background-color': s.color, shape: s.shape } as Record<string, unknown> })),
            { selector: 'node[role = "center"]', style: { width: 34, height: 34, 'font-weight': 'bold' } },
            { selector: 'edge', style: { width: 1.5, 'line-color': '#9ca3af', 'target-arrow-color': '#9ca3af', 'target-arrow-shape': 'triangle', 'curve-style': 'bezier', 'arrow-scale': 0.8 } },
            { selector: 'node.added', style: { 'background-opacity': 0.6 } },
            { selector: 'node.impacted', style: { 'border-width': 4, 'border-color': '#dc2626' } },
            { selector: 'node.impacted-2', style: { 'border-style': 'dashed' } },
            { selector: 'edge.impacted', style: { 'line-color': '#dc2626', 'target-arrow-color': '#dc2626', width: 3 } },
            { selector: 'node.path', style: { 'border-width': 4, 'border-color': '#f59e0b' } },
            { selector: 'edge.path', style: { 'line-color': '#f59e0b', 'target-arrow-color': '#f59e0b', width: 4, label: 'data(relation)', 'font-size': 9, 'text-rotation': 'autorotate' } },
            { selector: 'node:selected', style: { 'overlay-color': '#1d4ed8', 'overlay-opacity': 0.25, 'overlay-padding': 6 } },
          ] as never,
        });
        instance.on('tap', 'node', (e) => handlers.current.onSelect(e.target.id()));
        instance.on('dbltap', 'node', (e) => handlers.current.onCenter(e.target.id()));
        cy.current = instance;
        setReady(true);
      })
      .catch((e: unknown) => setFailed(String(e)));
    return () => {
      dead = true;
      cy.current?.destroy();
      cy.current = undefined;
    };
  }, []);

  useEffect(() => {
    const c = cy.current;
    if (!c || !ready) return;
    c.batch(() => {
      c.elements().remove();
      c.add(elements(neighbourhood, overlay));
    });
    c.layout({ name: 'preset', positions: rolePositions(c, neighbourhood.center.id), animate: false, fit: false } as never).run();
    frameAround(c, neighbourhood.center.id);
  }, [ready, neighbourhood, overlay]);

  useEffect(() => {
    const c = cy.current;
    if (!c || !ready) return;
    c.$(':selected').unselect();
    if (selected) c.getElementById(selected).select();
  }, [ready, selected, neighbourhood, overlay]);

  const count = neighbourhood.nodes.length;
  return (
    <div class="canvas-wrap">
      <div
        ref={box}
        class="canvas"
        data-ready={ready ? 'true' : 'false'}
        role="img"
        aria-label={`Neighbourhood of ${neighbourhood.center.label}: ${count} nodes. The node list holds the same nodes.`}
      />
      {failed ? <p class="error">The graph view did not load: {failed}</p> : null}
    </div>
  );
}
