// Shown alone while the server wants a token: nothing of the dashboard renders before one is accepted.
import { useState } from 'preact/hooks';

export function TokenPrompt({ refused, onSubmit }: { refused: boolean; onSubmit: (token: string) => Promise<void> }) {
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <main class="gate">
      <form
        class="token-form"
        aria-labelledby="token-title"
        onSubmit={async (e) => {
          e.preventDefault();
          if (!value.trim()) return;
          setBusy(true);
          await onSubmit(value.trim());
          setBusy(false);
        }}
      >
        <h1 id="token-title">m1nd dashboard</h1>
        <p>This server needs a token. It is kept for this browser tab only.</p>
        <label for="token">Token</label>
        <input id="token" name="token" type="password" autocomplete="off" required autoFocus value={value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} aria-describedby={refused ? 'token-refused' : undefined} />
        {refused ? (
          <p id="token-refused" class="error" role="alert">
            The server refused this token.
          </p>
        ) : null}
        <button type="submit" disabled={busy}>
          Open dashboard
        </button>
      </form>
    </main>
  );
}
