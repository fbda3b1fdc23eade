// A workspace file around one line, with line numbers; the target line is marked and scrolled to.
import { useEffect, useRef } from 'preact/hooks';
import { apiPath } from '../api.ts';
import { useApi } from '../hooks.ts';
import type { FileView } from '../types.ts';
import { ErrorBox, Loading } from '../ui.tsx';

export const FILE_CONTEXT_LINES = 20;

export function CodePanel({ path, line }: { path: string; line: number | undefined }) {
  const { data, error } = useApi<FileView>(apiPath('file', { path, line, context: FILE_CONTEXT_LINES }), ['graph']);
  const target = useRef<HTMLTableRowElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Scrolls the code box only (scrollIntoView would scroll the page too).
    const row = target.current;
    const box = scroller.current;
    if (row && box) box.scrollTop = Math.max(0, row.offsetTop - box.clientHeight / 2 + row.offsetHeight / 2);
  }, [data, line]);
  if (!data) return error ? <ErrorBox error={error} /> : <Loading what={path} />;
  return (
    <figure class="code" aria-label={`${data.path}${line ? ` at line ${line}` : ''}`}>
      <figcaption>
        <code>{data.path}</code>
        {line ? <span class="muted"> line {line}</span> : null}
        {data.language ? <span class="muted"> · {data.language}</span> : null}
      </figcaption>
      <div class="code-scroll" ref={scroller} tabIndex={0}>
        <table>
          <tbody>
            {data.lines.map((text, i) => {
              const n = data.start_line + i;
              const here = n === line;
              return (
                <tr key={n} ref={here ? target : undefined} class={here ? 'here' : undefined} data-line={n}>
                  <td class="ln" aria-hidden="true">{n}</td>
                  <td class="src">
                    <pre>{text}</pre>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
