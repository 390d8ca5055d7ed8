// Kubeconfig contexts as the console uses them without copying a credential:
// a context is chosen by a small file that sets only current-context, put
// first in KUBECONFIG (kubectl takes current-context from the first file
// that sets it and merges the rest), so terminals run kubectl against the
// chosen context while the user's kubeconfig stays where it is.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** DIR/console/contexts/<name>.kubeconfig: current-context only (0600). */
export function writeContextFile(dataDir: string, context: string): string {
  const dir = join(dataDir, 'console', 'contexts');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${context.replace(/[^A-Za-z0-9._-]/g, '_')}.kubeconfig`);
  writeFileSync(file, `apiVersion: v1\nkind: Config\ncurrent-context: ${JSON.stringify(context)}\n`, { mode: 0o600 });
  return file;
}
