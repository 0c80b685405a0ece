/**
 * Ends a long-running command on Ctrl-C (SIGINT) or SIGTERM by calling `stop`, so that it closes its
 * connection and exits 0; a second signal exits at once.
 */
export function stopOnSignals(stop: () => void): void {
  let stopping = false;
  const onSignal = (): void => {
    if (stopping) process.exit(130);
    stopping = true;
    stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
