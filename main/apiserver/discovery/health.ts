// /healthz, /livez and /readyz as kube-apiserver answers them: "ok" (text),
// `?verbose` lists every check (`[+]etcd ok`), a failing check is
// `[-]etcd failed: reason withheld` and a 500; `/readyz/<check>` runs one
// check; `?exclude=<check>` skips one. Check errors are logged, not shown.

export interface HealthCheck {
  name: string;
  check(): Promise<void>;
}

export interface HealthAnswer {
  code: number;
  body: string;
}

/** kind: 'healthz' | 'livez' | 'readyz'; sub: the path below it ('' or a check name). */
export async function runHealth(kind: string, sub: string, query: URLSearchParams, checks: HealthCheck[]): Promise<HealthAnswer | undefined> {
  if (sub !== '') {
    const one = checks.find((c) => c.name === sub);
    if (!one) return undefined;
    try {
      await one.check();
      return { code: 200, body: 'ok' };
    } catch {
      return { code: 500, body: 'internal server error: reason withheld\n' };
    }
  }
  const excluded = new Set(query.getAll('exclude'));
  const results = await Promise.all(
    checks
      .filter((c) => !excluded.has(c.name))
      .map(async (c) => {
        try {
          await c.check();
          return { name: c.name, ok: true };
        } catch {
          return { name: c.name, ok: false };
        }
      }),
  );
  const failed = results.some((r) => !r.ok);
  const lines = results.map((r) => (r.ok ? `[+]${r.name} ok` : `[-]${r.name} failed: reason withheld`));
  for (const name of excluded) lines.push(`[+]${name} excluded: ok`);
  if (failed) return { code: 500, body: `${lines.join('\n')}\n${kind} check failed\n` };
  if (query.has('verbose')) return { code: 200, body: `${lines.join('\n')}\n${kind} check passed\n` };
  return { code: 200, body: 'ok' };
}

/** A check that fails when `probe` takes longer than timeoutMs. */
export function timedCheck(name: string, timeoutMs: number, probe: () => Promise<unknown>): HealthCheck {
  return {
    name,
    async check() {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([probe(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${name} timed out`)), timeoutMs)))]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
