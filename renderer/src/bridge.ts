// The renderer's only door to the console services. In Electron the preload
// puts the bridge on window.pilothouse; the web host (K1) will provide the
// same shape over a WebSocket.
import type { Bridge } from '../../preload/contract';

export function bridge(): Bridge | undefined {
  return (window as unknown as { pilothouse?: Bridge }).pilothouse;
}
