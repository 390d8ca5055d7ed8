// Light/dark theme: follows the OS unless the user picks one; the choice is
// remembered in localStorage when there is one.

import { defineStore } from 'pinia';
import { computed, ref } from 'vue';

export type ThemePreference = 'auto' | 'light' | 'dark';
const KEY = 'pilothouse.theme';

function storage(): { getItem(k: string): string | null; setItem(k: string, v: string): void } | undefined {
  return (globalThis as { localStorage?: { getItem(k: string): string | null; setItem(k: string, v: string): void } }).localStorage;
}

export const useThemeStore = defineStore('theme', () => {
  const saved = storage()?.getItem(KEY);
  const preference = ref<ThemePreference>(saved === 'light' || saved === 'dark' ? saved : 'auto');
  /** Set by App.vue from naive-ui's useOsTheme(). */
  const osDark = ref(false);
  const dark = computed(() => (preference.value === 'auto' ? osDark.value : preference.value === 'dark'));

  function setPreference(p: ThemePreference): void {
    preference.value = p;
    storage()?.setItem(KEY, p);
  }

  /** auto → the opposite of what is shown now → back to auto. */
  function cycle(): void {
    if (preference.value === 'auto') setPreference(dark.value ? 'light' : 'dark');
    else setPreference('auto');
  }

  return { preference, osDark, dark, setPreference, cycle };
});
