// Small shared pieces. Every agent-supplied string goes through JSX text (escaped by Preact).
import type { ComponentChildren } from 'preact';
import type { ApiError } from './api.ts';
import { ago, isoTime } from './format.ts';

export function Time({ at }: { at: string | number | null | undefined }) {
  const iso = isoTime(at);
  return iso ? <time dateTime={iso} title={iso}>{ago(at)}</time> : <span>—</span>;
}

export function Badge({ tone, children }: { tone: string; children: ComponentChildren }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}

export function ErrorBox({ error }: { error: ApiError | undefined }) {
  if (!error || error.status === 401) return null;
  return (
    <div class="error" role="alert">
      <strong>{error.code}</strong>: {error.message}
      {error.hint ? <div class="hint">{error.hint}</div> : null}
    </div>
  );
}

export function Panel({ title, id, actions, children }: { title: string; id?: string; actions?: ComponentChildren; children: ComponentChildren }) {
  const headingId = id ? `${id}-title` : undefined;
  return (
    <section class="panel" id={id} aria-labelledby={headingId}>
      <header class="panel-head">
        <h2 id={headingId}>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

export function Stat({ label, value, tone }: { label: string; value: ComponentChildren; tone?: string }) {
  return (
    <div class={`stat${tone ? ` stat-${tone}` : ''}`}>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

/** A labelled drop-down. `options` are values shown as themselves, or [value, text] pairs. */
export function Choice<T extends string>(props: {
  label: string;
  value: T;
  options: readonly (T | readonly [T, string])[];
  onChange: (value: T) => void;
  name?: string;
  inline?: boolean;
}) {
  const { label, value, options, onChange, name, inline } = props;
  return (
    <label class={inline ? 'inline' : undefined}>
      {label}
      <select name={name} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value as T)}>
        {options.map((o) => {
          const [v, text] = typeof o === 'string' ? [o, o] : (o as readonly [T, string]);
          return (
            <option key={v} value={v}>
              {text}
            </option>
          );
        })}
      </select>
    </label>
  );
}
