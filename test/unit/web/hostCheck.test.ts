import { describe, expect, it } from 'vitest';
import { hostAllowed, originAllowed } from '../../../main/web/hostCheck';

const port = 28402;

describe('hostAllowed', () => {
  const cases = [
    { host: '127.0.0.1:28402', want: true },
    { host: 'localhost:28402', want: true },
    { host: 'LOCALHOST:28402', want: true },
    { host: undefined, want: false },
    { host: '127.0.0.1', want: false },
    { host: '127.0.0.1:28403', want: false },
    { host: 'evil.example:28402', want: false },
    { host: 'localhost.evil.example:28402', want: false },
    { host: '[::1]:28402', want: false },
    { host: '0.0.0.0:28402', want: false },
  ];
  it.each(cases)('$host → $want', ({ host, want }) => expect(hostAllowed(host, port)).toBe(want));
});

describe('originAllowed', () => {
  const cases = [
    { origin: undefined, want: true },
    { origin: 'http://127.0.0.1:28402', want: true },
    { origin: 'http://localhost:28402', want: true },
    { origin: 'null', want: false },
    { origin: 'https://127.0.0.1:28402', want: false },
    { origin: 'http://127.0.0.1:28403', want: false },
    { origin: 'http://evil.example', want: false },
    { origin: 'http://127.0.0.1:28402.evil.example', want: false },
    { origin: 'file://', want: false },
  ];
  it.each(cases)('$origin → $want', ({ origin, want }) => expect(originAllowed(origin, port)).toBe(want));
});
