// Waiting on a condition, never on the clock alone.

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
