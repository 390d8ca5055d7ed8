// The console's views in sidebar order, with their keyboard shortcuts:
// "g" then the letter, or the number alone.

export interface NavItem {
  name: string;
  path: string;
  label: string;
  /** Shape shown beside the label (the sidebar never relies on colour). */
  icon: string;
  /** Second key of the "g …" sequence. */
  key: string;
  /** 1-based number key. */
  n: number;
}

export const NAV: readonly NavItem[] = [
  { name: 'overview', path: '/overview', label: 'Overview', icon: '◉', key: 'o', n: 1 },
  { name: 'members', path: '/members', label: 'Members', icon: '⬢', key: 'm', n: 2 },
  { name: 'leader', path: '/leader', label: 'Leader', icon: '★', key: 'e', n: 3 },
  { name: 'watch', path: '/watch', label: 'Watch events', icon: '⇶', key: 'w', n: 4 },
  { name: 'admission', path: '/admission', label: 'Admission log', icon: '◈', key: 'a', n: 5 },
  { name: 'snapshots', path: '/snapshots', label: 'Snapshots', icon: '▣', key: 's', n: 6 },
  { name: 'walkthroughs', path: '/walkthroughs', label: 'Walkthroughs', icon: '➤', key: 'k', n: 7 },
  { name: 'terminal', path: '/terminal', label: 'Terminal', icon: '❯', key: 't', n: 8 },
  { name: 'logs', path: '/logs', label: 'Logs', icon: '☰', key: 'l', n: 9 },
];
