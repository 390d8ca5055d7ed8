// DIR/etcdctl.env (written by the control plane for `source`) read back as
// variables: for the console terminals' environment and for the tools that reach
// the cluster from its data dir (main/backup).

/** `export K=V` lines as a map (values unquoted). */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^export ([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim());
    if (!m) continue;
    let v = m[2]!;
    if (v.startsWith("'") && v.endsWith("'")) v = v.slice(1, -1).replace(/'\\''/g, "'");
    out[m[1]!] = v;
  }
  return out;
}
