import { createApp } from 'vue';
import { createPinia } from 'pinia';
import App from './App.vue';
import { bridge } from './bridge';
import { createConsoleRouter } from './router';
import { provideBridge } from './stores/bridgeProvider';
import './style.css';

provideBridge(bridge());
createApp(App).use(createPinia()).use(createConsoleRouter()).mount('#app');
