/**
 * Mermaid's own parser, for tests: what we print in ```mermaid blocks must be a diagram GitHub
 * renders, not an error box in the middle of a PR comment. Mermaid needs a DOM (its sanitizer binds
 * to `window` when it loads), so a jsdom window is installed once, before Mermaid is imported.
 */

interface MermaidApi {
  parse(text: string): Promise<unknown>;
}

let mermaid: Promise<MermaidApi> | undefined;

function load(): Promise<MermaidApi> {
  mermaid ??= (async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { JSDOM } = require('jsdom') as {
      JSDOM: new (html: string) => { window: { document: unknown } };
    };
    const { window } = new JSDOM('<!doctype html><html><body></body></html>');
    Object.assign(globalThis, { window, document: window.document });
    const mod = (await import('mermaid')) as unknown as { default: MermaidApi };
    return mod.default;
  })();
  return mermaid;
}

/** Resolves when Mermaid parses `text`; rejects with Mermaid's parse error otherwise. */
export async function parseMermaid(text: string): Promise<void> {
  await (await load()).parse(text);
}

/** The bodies of the ```mermaid blocks of a markdown text. */
export function mermaidBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}
