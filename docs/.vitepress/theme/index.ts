/**
 * The default theme, with one component more: <Mermaid>, which the pages' ```mermaid blocks become
 * (`mermaidFence`, scripts/docs/site.ts).
 */
import DefaultTheme from 'vitepress/theme';
import type { Theme } from 'vitepress';
import Mermaid from './Mermaid.vue';
import './custom.css';

export default {
  extends: DefaultTheme,
  enhanceApp({ app }) {
    app.component('Mermaid', Mermaid);
  },
} satisfies Theme;
