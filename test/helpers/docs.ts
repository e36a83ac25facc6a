// What the documentation tests share: VitePress's own markdown renderer, as the site's build
// renders pages, with one plugin of ours (a checker of scripts/docs/site.ts, or the Mermaid fence),
// and a repository of a few files in a temporary directory to render or check.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** What the tests call of VitePress's renderer (markdown-it's render with VitePress's env). */
export type Renderer = { render(src: string, env: object): string };

/**
 * A fresh VitePress markdown renderer for the pages under `srcDir`, using `plugin` (VitePress keeps
 * one renderer per process: the one with this plugin, from now on).
 */
export async function vitepressRenderer(srcDir: string, plugin: unknown): Promise<Renderer> {
  const { createMarkdownRenderer, disposeMdItInstance } = await import('vitepress');
  disposeMdItInstance();
  return (await createMarkdownRenderer(srcDir, {
    config: (m) => {
      m.use(plugin as Parameters<typeof m.use>[0]);
    },
  })) as unknown as Renderer;
}

/** A new temporary directory (its name starting `prefix`) holding `files` (path → text); its path. */
export function tempRepo(prefix: string, files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}
