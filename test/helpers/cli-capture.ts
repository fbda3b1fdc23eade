/** Runs the m1nd CLI's `main` in-process with these arguments, capturing what it writes and its exit code. */
export async function captureCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { main } = await import('../../core/cli.ts');
  const out: string[] = [];
  const err: string[] = [];
  const [o, e] = [process.stdout.write, process.stderr.write];
  process.stdout.write = ((c: string) => out.push(String(c)) > 0) as typeof process.stdout.write;
  process.stderr.write = ((c: string) => err.push(String(c)) > 0) as typeof process.stderr.write;
  try {
    const code = await main(args);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
}
