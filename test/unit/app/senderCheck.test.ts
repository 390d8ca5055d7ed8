import { describe, expect, it } from 'vitest';
import { isTrustedSender } from '../../../main/app/senderCheck';

const indexUrl = 'pilothouse://app/index.html';
const trusted = { webContentsId: 7 };

describe('isTrustedSender', () => {
  const ok = { webContentsId: 7, frameUrl: indexUrl, isTopFrame: true };
  const cases = [
    { name: 'our window, top frame, our page', sender: ok, trusted, want: true },
    { name: 'client-side route in the hash', sender: { ...ok, frameUrl: `${indexUrl}#/members` }, trusted, want: true },
    { name: 'query string', sender: { ...ok, frameUrl: `${indexUrl}?x=1` }, trusted, want: true },
    { name: 'another webContents', sender: { ...ok, webContentsId: 8 }, trusted, want: false },
    { name: 'no window yet', sender: ok, trusted: { webContentsId: undefined }, want: false },
    { name: 'subframe', sender: { ...ok, isTopFrame: false }, trusted, want: false },
    { name: 'frame gone', sender: { ...ok, frameUrl: undefined }, trusted, want: false },
    { name: 'the renderer as a file (the old origin)', sender: { ...ok, frameUrl: 'file:///opt/pilothouse/out/renderer/index.html' }, trusted, want: false },
    { name: 'other file', sender: { ...ok, frameUrl: 'file:///tmp/evil.html' }, trusted, want: false },
    { name: 'another page of the app origin', sender: { ...ok, frameUrl: 'pilothouse://app/other.html' }, trusted, want: false },
    { name: 'an asset of the app origin', sender: { ...ok, frameUrl: 'pilothouse://app/assets/index.js' }, trusted, want: false },
    { name: 'another host of the app scheme', sender: { ...ok, frameUrl: 'pilothouse://evil/index.html' }, trusted, want: false },
    { name: 'credentials in the URL', sender: { ...ok, frameUrl: 'pilothouse://u:p@app/index.html' }, trusted, want: false },
    { name: 'a port', sender: { ...ok, frameUrl: 'pilothouse://app:1/index.html' }, trusted, want: false },
    { name: 'trailing slash', sender: { ...ok, frameUrl: 'pilothouse://app/index.html/' }, trusted, want: false },
    { name: 'http page', sender: { ...ok, frameUrl: 'http://127.0.0.1:7380/index.html' }, trusted, want: false },
    { name: 'https look-alike', sender: { ...ok, frameUrl: 'https://app/index.html' }, trusted, want: false },
    { name: 'unparseable url', sender: { ...ok, frameUrl: 'not a url' }, trusted, want: false },
    { name: 'about:blank', sender: { ...ok, frameUrl: 'about:blank' }, trusted, want: false },
  ];
  it.each(cases)('$name → $want', ({ sender, trusted: t, want }) => {
    expect(isTrustedSender(sender, t)).toBe(want);
  });
});
