// Terminals belong to the page that opened them. When the console window
// reloads (Ctrl+R, a renderer crash and reload) the new page knows nothing of
// the old page's shells, and the terminal count is bounded, so the shell
// closes them. The web host does the same per WebSocket (bridgeSockets.ts).

import type { BridgeHandlers } from '../../preload/contract';

export interface TerminalLease {
  /** The same handlers, with openTerminal/closeTerminal recorded. */
  handlers: BridgeHandlers;
  /** Close every terminal opened through these handlers and not yet closed. */
  closeAll(): void;
  readonly open: ReadonlySet<string>;
}

export function leaseTerminals(inner: BridgeHandlers): TerminalLease {
  const open = new Set<string>();
  const handlers: BridgeHandlers = {
    ...inner,
    openTerminal: async (req) => {
      const info = await inner.openTerminal(req);
      open.add(info.id);
      return info;
    },
    closeTerminal: async (req) => {
      open.delete(req?.id);
      await inner.closeTerminal(req);
    },
  };
  return {
    handlers,
    open,
    closeAll() {
      for (const id of [...open]) {
        open.delete(id);
        void Promise.resolve()
          .then(() => inner.closeTerminal({ id }))
          .catch(() => {});
      }
    },
  };
}
