import { createApp } from 'vue';
import { createPinia } from 'pinia';
import App from './App.vue';
import { bridge } from './bridge';
import { createConsoleRouter } from './router';
import { provideBridge } from './stores/bridgeProvider';
import './style.css';

// First: in a browser this takes the access token out of the URL's fragment before the hash router reads it.
provideBridge(bridge());
createApp(App).use(createPinia()).use(createConsoleRouter()).mount('#app');
