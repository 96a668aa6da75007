// Waiting on a condition, never on the clock alone.
//
// Hand-written on purpose: this polls a condition at a fixed interval up to a deadline, keeping the
// last error for the timeout message; it is not a retry with backoff. p-retry would end early on a
// check that throws a TypeError other than a network error, and p-wait-for stops at the first
// error a check throws (a ping refused while the server is still starting).

/** Thrown by a check when waiting longer cannot help (the process being waited on has exited). */
export class WaitAbortedError extends Error {
  override name = 'WaitAbortedError';
}
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 30_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      if (error instanceof WaitAbortedError) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Runs a readiness wait for a process just started; if the wait fails, the process is stopped. */
export async function stopOnFailure<T>(process: { stop(): Promise<void> }, ready: () => Promise<T>): Promise<T> {
  try {
    return await ready();
  } catch (error) {
    await process.stop();
    throw error;
  }
}
