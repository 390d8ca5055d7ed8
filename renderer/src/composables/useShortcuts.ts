// Global keyboard navigation: "g o" / "1" style sequences go to a view, "?"
// opens the shortcut help, "t" toggles the theme. Keys typed into inputs and
// terminals are left alone, and so is anything with Ctrl/Alt/Meta held.

import { onBeforeUnmount, onMounted, ref } from 'vue';
import type { Router } from 'vue-router';
import { NAV } from '../nav';
import { SequenceMatcher, type Binding } from '../lib/shortcuts';

export type ShortcutAction = { go: string } | { help: true } | { theme: true };

export function shortcutBindings(): Binding<ShortcutAction>[] {
  return [
    ...NAV.map((n) => ({ keys: `g ${n.key}`, action: { go: n.path } })),
    ...NAV.map((n) => ({ keys: String(n.n), action: { go: n.path } })),
    { keys: '?', action: { help: true } },
    { keys: 'g d', action: { theme: true } },
  ];
}

function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || typeof el.closest !== 'function') return false;
  if (el.isContentEditable) return true;
  return el.closest('input, textarea, select, .xterm') !== null;
}

export function useShortcuts(router: Router, onTheme: () => void) {
  const helpOpen = ref(false);
  const partial = ref('');
  const matcher = new SequenceMatcher(shortcutBindings());

  function onKey(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
    if (e.key === 'Escape') {
      helpOpen.value = false;
      matcher.reset();
      partial.value = '';
      return;
    }
    if (e.key.length !== 1) return; // arrows, Tab, Enter keep their usual meaning
    const action = matcher.feed(e.key, performance.now());
    partial.value = matcher.partial;
    if (!action) return;
    e.preventDefault();
    if ('go' in action) void router.push(action.go);
    else if ('help' in action) helpOpen.value = !helpOpen.value;
    else onTheme();
  }

  onMounted(() => window.addEventListener('keydown', onKey));
  onBeforeUnmount(() => window.removeEventListener('keydown', onKey));
  return { helpOpen, partial };
}
