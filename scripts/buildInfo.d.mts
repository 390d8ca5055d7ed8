export function buildInfo(): { version: string; commit: string; treeState: string; buildDate: string };
