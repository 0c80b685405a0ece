/**
 * Retries `check` until it stops throwing (deliveries complete asynchronously), or rethrows after
 * `timeoutMs`; `intervalMs` apart, longer for a check that is itself costly (it runs a process).
 */
export async function eventually(check: () => unknown, timeoutMs = 5000, intervalMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
