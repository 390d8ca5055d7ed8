// The last line of defence of a serving API server: an exception that escaped
// every handler (a socket or parser callback, a stray promise) is logged with
// its stack and the process keeps serving everyone else, as kube-apiserver's
// per-request panic recovery and net/http's per-connection recovery keep it
// up. Installed by `pilothouse apiserver` once it serves; returns the remover.

export function guardProcess(log: (line: string) => void): () => void {
  const onException = (err: unknown): void => log(`apiserver: uncaught exception, still serving: ${describe(err)}`);
  const onRejection = (err: unknown): void => log(`apiserver: unhandled rejection, still serving: ${describe(err)}`);
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
