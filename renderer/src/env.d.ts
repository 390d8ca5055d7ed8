// Lets `tsc -p renderer` type-check the renderer's .ts modules that import single-file components.
declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent<object, object, unknown>;
  export default component;
}
