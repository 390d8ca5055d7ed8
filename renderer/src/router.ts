// Hash history: the web host serves one page behind its token, so every view
// lives in the fragment and a reload never asks the host for another path.

import { createRouter, createWebHashHistory, type RouteRecordRaw } from 'vue-router';
import OverviewView from './views/OverviewView.vue';
import MembersView from './views/MembersView.vue';
import WatchEventsView from './views/WatchEventsView.vue';
import AdmissionView from './views/AdmissionView.vue';
import SnapshotsView from './views/SnapshotsView.vue';
import LogsView from './views/LogsView.vue';
import WalkthroughsView from './views/WalkthroughsView.vue';
import { NAV } from './nav';

// echarts and xterm.js are the two heavy dependencies: their views load on first visit.
const LeaderView = () => import('./views/LeaderView.vue');
const TerminalView = () => import('./views/TerminalView.vue');

const components = {
  overview: OverviewView,
  members: MembersView,
  leader: LeaderView,
  watch: WatchEventsView,
  admission: AdmissionView,
  snapshots: SnapshotsView,
  walkthroughs: WalkthroughsView,
  terminal: TerminalView,
  logs: LogsView,
} as const;

const routes: RouteRecordRaw[] = [
  { path: '/', redirect: '/overview' },
  ...NAV.map((n) => ({ path: n.path, name: n.name, component: components[n.name as keyof typeof components], meta: { title: n.label } })),
  { path: '/:rest(.*)*', redirect: '/overview' },
];

export function createConsoleRouter() {
  return createRouter({ history: createWebHashHistory(), routes });
}
