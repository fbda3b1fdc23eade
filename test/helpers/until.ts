/** Waits until `check` answers a truthy value, polling every 50 ms; fails naming `what` after `ms`. */
export async function until<T>(check: () => Promise<T | undefined | false>, ms = 8000, what = 'condition'): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
