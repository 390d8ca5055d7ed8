import { describe, expect, it } from 'vitest';
import { consoleCsp } from '../../../main/common/rendererHost/csp';
import { externalHttpUrl, guardNavigation, permissionAllowed, withCsp, type GuardedContents } from '../../../main/app/navigationPolicy';

describe('externalHttpUrl', () => {
  const cases = [
    { url: 'https://kubernetes.io/docs/tasks/tools/', want: 'https://kubernetes.io/docs/tasks/tools/' },
    { url: 'http://example.com', want: 'http://example.com/' },
    { url: 'file:///etc/passwd', want: undefined },
    { url: 'javascript:alert(1)', want: undefined },
    { url: 'smb://host/share', want: undefined },
    { url: 'ms-msdt:/id', want: undefined },
    { url: 'not a url', want: undefined },
  ];
  it.each(cases)('$url', ({ url, want }) => expect(externalHttpUrl(url)).toBe(want));
});

/** A fake webContents that records the handlers guardNavigation installs. */
function fakeContents() {
  const listeners = new Map<string, (event: { preventDefault(): void }, url: string) => void>();
  let openHandler: ((d: { url: string }) => { action: 'deny' }) | undefined;
  const contents = {
    on(name: string, l: (event: { preventDefault(): void }, url: string) => void) {
      listeners.set(name, l);
      return contents;
    },
    setWindowOpenHandler(h: (d: { url: string }) => { action: 'deny' }) {
      openHandler = h;
    },
  };
  const fire = (name: string, url = '') => {
    let prevented = false;
    listeners.get(name)?.({ preventDefault: () => (prevented = true) }, url);
    return prevented;
  };
  return { contents: contents as unknown as GuardedContents, fire, open: (url: string) => openHandler?.({ url }) };
}

describe('guardNavigation', () => {
  const cases = [
    { name: 'will-navigate to the web', event: 'will-navigate', url: 'https://etcd.io/docs', external: ['https://etcd.io/docs'] },
    { name: 'will-navigate to a file', event: 'will-navigate', url: 'file:///tmp/x.html', external: [] },
    { name: 'will-redirect', event: 'will-redirect', url: 'http://example.com/', external: ['http://example.com/'] },
    { name: 'will-attach-webview', event: 'will-attach-webview', url: '', external: [] },
    { name: 'will-navigate to another page of the app origin', event: 'will-navigate', url: 'pilothouse://app/other.html', external: [] },
    { name: 'will-navigate to another host of the app scheme', event: 'will-navigate', url: 'pilothouse://evil/index.html', external: [] },
    { name: 'will-navigate to the renderer as a file', event: 'will-navigate', url: 'file:///opt/pilothouse/out/renderer/index.html', external: [] },
  ];
  it.each(cases)('prevents $name; opens only http(s) externally', ({ event, url, external }) => {
    const opened: string[] = [];
    const f = fakeContents();
    guardNavigation(f.contents, (u) => opened.push(u));
    expect(f.fire(event, url)).toBe(true);
    expect(opened).toEqual(external);
  });

  it.each(['pilothouse://app/index.html', 'pilothouse://app/index.html#/members'])('lets the window (re)load its own page: %s', (url) => {
    const opened: string[] = [];
    const f = fakeContents();
    guardNavigation(f.contents, (u) => opened.push(u));
    expect(f.fire('will-navigate', url)).toBe(false);
    expect(opened).toEqual([]);
  });

  it('denies every new window, handing http(s) links to the OS', () => {
    const opened: string[] = [];
    const f = fakeContents();
    guardNavigation(f.contents, (u) => opened.push(u));
    expect(f.open('https://kubernetes.io/')).toEqual({ action: 'deny' });
    expect(f.open('file:///etc/passwd')).toEqual({ action: 'deny' });
    expect(f.open('about:blank')).toEqual({ action: 'deny' });
    expect(f.open('pilothouse://app/index.html')).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://kubernetes.io/']);
  });
});

describe('permissionAllowed', () => {
  it.each(['media', 'notifications', 'geolocation', 'clipboard-read', 'openExternal', 'fullscreen'])('%s → refused', (p) => {
    expect(permissionAllowed(p)).toBe(false);
  });
});

describe('withCsp', () => {
  it('sets the console CSP, replacing any other spelling', () => {
    expect(withCsp({ 'content-security-policy': ['default-src *'], 'X-Other': ['1'] })).toEqual({
      'X-Other': ['1'],
      'Content-Security-Policy': [consoleCsp('electron')],
    });
    expect(withCsp(undefined)).toEqual({ 'Content-Security-Policy': [consoleCsp('electron')] });
  });
});
