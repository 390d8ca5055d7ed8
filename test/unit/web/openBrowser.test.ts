import { describe, expect, it } from 'vitest';
import { browserCommand } from '../../../main/web/openBrowser';

describe('browserCommand', () => {
  const cases = [
    { name: 'linux desktop (X11)', platform: 'linux' as const, env: { DISPLAY: ':0' }, want: { command: 'xdg-open', args: [] } },
    { name: 'linux desktop (Wayland)', platform: 'linux' as const, env: { WAYLAND_DISPLAY: 'wayland-0' }, want: { command: 'xdg-open', args: [] } },
    { name: 'linux without a display', platform: 'linux' as const, env: {}, want: undefined },
    { name: 'macOS', platform: 'darwin' as const, env: {}, want: { command: 'open', args: [] } },
    { name: 'Windows', platform: 'win32' as const, env: {}, want: { command: 'cmd', args: ['/c', 'start', '""'] } },
  ];
  it.each(cases)('$name', ({ platform, env, want }) => expect(browserCommand(platform, env)).toEqual(want));
});
