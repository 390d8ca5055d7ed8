import { describe, expect, it } from 'vitest';
import { isOurPage, isTrustedSender } from '../../../main/app/senderCheck';

const indexUrl = 'file:///opt/pilothouse/out/renderer/index.html';
const trusted = { webContentsId: 7, indexUrl };

describe('isTrustedSender', () => {
  const ok = { webContentsId: 7, frameUrl: indexUrl, isTopFrame: true };
  const cases = [
    { name: 'our window, top frame, our page', sender: ok, trusted, want: true },
    { name: 'client-side route in the hash', sender: { ...ok, frameUrl: `${indexUrl}#/members` }, trusted, want: true },
    { name: 'query string', sender: { ...ok, frameUrl: `${indexUrl}?x=1` }, trusted, want: true },
    { name: 'another webContents', sender: { ...ok, webContentsId: 8 }, trusted, want: false },
    { name: 'no window yet', sender: ok, trusted: { ...trusted, webContentsId: undefined }, want: false },
    { name: 'subframe', sender: { ...ok, isTopFrame: false }, trusted, want: false },
    { name: 'frame gone', sender: { ...ok, frameUrl: undefined }, trusted, want: false },
    { name: 'other file', sender: { ...ok, frameUrl: 'file:///tmp/evil.html' }, trusted, want: false },
    { name: 'sibling file in the renderer dir', sender: { ...ok, frameUrl: 'file:///opt/pilothouse/out/renderer/other.html' }, trusted, want: false },
    { name: 'http page', sender: { ...ok, frameUrl: 'http://127.0.0.1:7380/index.html' }, trusted, want: false },
    { name: 'https look-alike path', sender: { ...ok, frameUrl: 'https://evil.example/opt/pilothouse/out/renderer/index.html' }, trusted, want: false },
    { name: 'unparseable url', sender: { ...ok, frameUrl: 'not a url' }, trusted, want: false },
    { name: 'about:blank', sender: { ...ok, frameUrl: 'about:blank' }, trusted, want: false },
  ];
  it.each(cases)('$name → $want', ({ sender, trusted: t, want }) => {
    expect(isTrustedSender(sender, t)).toBe(want);
  });
});

describe('isOurPage', () => {
  const cases = [
    { url: 'file:///opt/pilothouse/out/renderer/index.html', want: true },
    { url: 'file:///opt/pilothouse/out/renderer/../renderer/index.html', want: true }, // URL parsing normalizes
    { url: 'file://host/opt/pilothouse/out/renderer/index.html', want: false },
    { url: 'file:///opt/pilothouse/out/renderer/index.html/', want: false },
  ];
  it.each(cases)('$url → $want', ({ url, want }) => expect(isOurPage(url, indexUrl)).toBe(want));
});
