// Which IPC senders may call the bridge: only our console window's top frame
// showing our own renderer page, pilothouse://app/index.html (rendererProtocol.ts). Anything else — a subframe, another
// webContents, a page that somehow navigated elsewhere — is refused, so a
// compromised or foreign document cannot drive the cluster (Electron security
// checklist: "validate the sender of all IPC messages").

import { isAppPage } from './rendererProtocol';

export interface SenderInfo {
  /** webContents.id of the sender. */
  webContentsId: number;
  /** URL of the sending frame; undefined when the frame is gone. */
  frameUrl: string | undefined;
  /** The frame is its page's top frame. */
  isTopFrame: boolean;
}

export interface TrustedWindow {
  /** webContents.id of the console window; undefined before it exists. */
  webContentsId: number | undefined;
}

export function isTrustedSender(sender: SenderInfo, trusted: TrustedWindow): boolean {
  if (trusted.webContentsId === undefined || sender.webContentsId !== trusted.webContentsId) return false;
  if (!sender.isTopFrame || sender.frameUrl === undefined) return false;
  return isAppPage(sender.frameUrl);
}
