/** Markdown renderings of help answers (render: full | compact). */

type Data = Record<string, any>;

function renderOverview(d: Data, compact: boolean): string {
  const lines = [`# m1nd verbs — tier "${d.tier}": ${d.advertised} advertised of ${d.registered} registered`];
  lines.push(`Tiers: ${Object.entries(d.tiers).map(([t, n]) => `${t} (${n})`).join(', ')}. ${d.how_to_call_hidden}`);
  for (const [family, verbs] of Object.entries(d.families as Record<string, Data[]>)) {
    const names = verbs.map((v) => (v.advertised ? v.name : `${v.name}*`));
    lines.push(compact ? `- ${family}: ${names.join(', ')}` : `## ${family}\n${names.join(', ')}`);
  }
  lines.push('`*` = callable but not advertised in this tier.');
  if (!compact && d.back_compat.length) lines.push(`Back-compat: ${d.back_compat.map((b: Data) => `${b.name}${b.use_instead ? ` → use ${b.use_instead}` : ''}`).join('; ')}`);
  return lines.join('\n');
}

function renderTool(d: Data, compact: boolean): string {
  if (!d.found) return `No verb "${d.tool_name}". ${d.suggestions?.length ? `Did you mean: ${d.suggestions.join(', ')}?` : ''}`;
  const lines = [`# ${d.tool_name} (${d.family}, ${d.effect})`, d.description];
  lines.push(`Advertised in: ${d.advertised_in.length ? d.advertised_in.join(', ') : 'no tier (callable by name)'}${d.advertised_now ? '' : ' — not in the current tools/list, still callable'}.`);
  if (d.use_instead) lines.push(`Back-compat verb: prefer ${d.use_instead}.`);
  lines.push('Parameters:');
  for (const p of d.parameters) {
    lines.push(`- ${p.name}${p.required ? '*' : ''}: ${p.type}${p.default !== undefined ? ` = ${JSON.stringify(p.default)}` : ''}${!compact && p.description ? ` — ${p.description}` : ''}`);
  }
  lines.push(`Minimal call: ${d.tool_name}(${JSON.stringify(d.minimal_call.arguments)})`);
  if (!compact && d.guide) lines.push('', d.guide);
  return lines.join('\n');
}

function renderRoute(d: Data): string {
  if (!d.suggestions.length) return 'No verb matches; try help with mode "overview".';
  return d.suggestions.map((s: Data, i: number) => `${i + 1}. ${s.verb}(${JSON.stringify(s.arguments)}) — ${s.why}${s.advertised ? '' : ' (not advertised, callable)'}`).join('\n');
}

function renderRecovery(d: Data): string {
  const lines = [d.error_code ? `Error ${d.error_code}:` : 'Recovery:'];
  d.steps.forEach((s: string, i: number) => lines.push(`${i + 1}. ${s}`));
  for (const v of d.verbs_named) lines.push(`- ${v.verb} minimal call: ${JSON.stringify(v.minimal_call)}`);
  if (d.suggestions.length) lines.push(`Did you mean: ${d.suggestions.join(', ')}?`);
  return lines.join('\n');
}

function renderWorkflows(d: Data, compact: boolean): string {
  if (!d.workflows.length) return 'No workflow matches.';
  return d.workflows
    .map((w: Data) => `## ${w.name}\n${w.when}\n${w.steps.map((s: Data, i: number) => `${i + 1}. ${s.verb}${compact ? '' : ` — ${s.why}`}`).join('\n')}`)
    .join('\n\n');
}

/** Renders one help answer as markdown. */
export function renderHelp(mode: string, data: Data, compact: boolean): string {
  switch (mode) {
    case 'tool':
      return renderTool(data, compact);
    case 'route':
      return renderRoute(data);
    case 'recovery':
      return renderRecovery(data);
    case 'workflow':
      return renderWorkflows(data, compact);
    default:
      return renderOverview(data, compact);
  }
}
