/**
 * The documentation site's structure and its link check, shared by the VitePress config
 * (docs/.vitepress/config.mts, which esbuild bundles with this file) and the tests.
 *
 * - SIDEBAR lists every page of docs/; `sidebarProblems` says which page is missing from it and which
 *   entry names no page, and the config refuses to build with any.
 * - `LinkChecker` is a markdown-it plugin over the pages as VitePress renders them. VitePress itself
 *   fails the build on a link to a page that does not exist, but it checks no `#anchor`, and a link
 *   to a file of the repository outside docs/ (`../examples/minimal/`, `../lib/model.ts`) it either
 *   takes for a missing page or does not check at all. This plugin checks both: an anchor must be a
 *   heading of its page whose id is the same on the site and on GitHub, and a repository link must
 *   name a file or directory that exists, and becomes a link to it on GitHub (the site serves
 *   docs/ only). The config fails the build with every problem at once.
 *
 * - `ParagraphChecker` is a markdown-it plugin too: it finds every paragraph of a page (a list item's
 *   included) longer than PARAGRAPH_WORD_LIMIT words, a wall a reader must scroll through, and the
 *   config fails the build with them, as with broken links.
 * - `mermaidFence` renders a ```mermaid block as the theme's <Mermaid> component
 *   (docs/.vitepress/theme/), which draws it in the browser with the mermaid package: nothing is
 *   fetched, at build time or at read time.
 *
 * Links are written so that they work both on GitHub and on the site: relative, to `.md` files.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface SidebarItem {
  readonly text: string;
  /** Site path: `/concepts` for docs/concepts.md, `/` for docs/index.md. */
  readonly link: string;
}

export interface SidebarGroup {
  readonly text: string;
  readonly items: readonly SidebarItem[];
}

/** Every page of the site, in reading order. A page not listed here fails the build. */
export const SIDEBAR: readonly SidebarGroup[] = [
  {
    text: 'Start',
    items: [
      { text: 'Overview', link: '/' },
      { text: 'Concepts', link: '/concepts' },
      { text: 'Getting started', link: '/getting-started' },
      { text: 'Installing', link: '/installing' },
    ],
  },
  {
    text: 'Guide',
    items: [
      { text: 'The model', link: '/model' },
      { text: 'The CLI', link: '/cli' },
      { text: 'Reviewing a change', link: '/diff' },
      { text: 'What lands where', link: '/what-lands-where' },
      { text: 'Runbook', link: '/runbook' },
      { text: 'Adopting a running set', link: '/import' },
      { text: 'Delivery', link: '/delivery' },
      { text: 'The reconciler', link: '/reconciler' },
      { text: 'Day two', link: '/day-two' },
      { text: 'Gateways', link: '/gateways' },
      { text: 'Explaining a ClusterSet', link: '/explain' },
      { text: 'Troubleshooting', link: '/troubleshooting' },
      { text: 'Examples', link: '/examples' },
    ],
  },
  {
    text: 'Reference',
    items: [
      { text: 'Model reference', link: '/reference/model' },
      { text: 'CLI reference', link: '/reference/cli' },
    ],
  },
  {
    text: 'Project',
    items: [
      { text: 'How this is tested', link: '/testing' },
      { text: 'Benchmarks', link: '/benchmarks' },
    ],
  },
];

/** The docs/ file of a sidebar link: `/` is index.md, `/reference/cli` reference/cli.md. */
export function pageOfLink(link: string): string {
  const p = link.replace(/^\//, '');
  return p === '' || p.endsWith('/') ? `${p}index.md` : `${p}.md`;
}

/** Every `.md` file under `srcDir`, relative to it, `/`-separated, sorted. Dot-directories are skipped. */
export function listPages(srcDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.md')) out.push(path.relative(srcDir, full).split(path.sep).join('/'));
    }
  };
  walk(srcDir);
  return out.sort();
}

/** Pages of `srcDir` the sidebar does not list, and sidebar entries with no page: one line each. */
export function sidebarProblems(srcDir: string, sidebar: readonly SidebarGroup[] = SIDEBAR): string[] {
  const listed = sidebar.flatMap((g) => g.items.map((i) => pageOfLink(i.link)));
  const pages = listPages(srcDir);
  const problems: string[] = [];
  for (const p of pages)
    if (!listed.includes(p)) problems.push(`docs/${p} is not in the sidebar (scripts/docs/site.ts, SIDEBAR)`);
  for (const p of listed)
    if (!pages.includes(p)) problems.push(`the sidebar lists docs/${p}, which does not exist`);
  const twice = listed.filter((p, i) => listed.indexOf(p) !== i);
  for (const p of new Set(twice)) problems.push(`the sidebar lists docs/${p} more than once`);
  return problems;
}

/** `https://github.com/owner/name` from package.json's `repository` (a string or `{url}`). */
export function repositoryWebUrl(repository: string | { url: string }): string {
  const url = typeof repository === 'string' ? repository : repository.url;
  const m = /github\.com[/:]([^/]+\/[^/]+?)(?:\.git)?\/?$/.exec(url);
  if (!m) throw new Error(`package.json's repository (${url}) is not a GitHub repository`);
  return `https://github.com/${m[1]}`;
}

/**
 * A heading's id as GitHub renders it (github-slugger): lower case, punctuation dropped, each space a
 * hyphen; the n-th repeat of a slug in a page gets `-n`, as on the site.
 */
export function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The part of markdown-it's Token this module reads and writes. */
export interface MdToken {
  type: string;
  tag: string;
  content: string;
  /** Source lines [begin, end) of a block token, 0-based. */
  map: [number, number] | null;
  info: string;
  children: MdToken[] | null;
  attrGet(name: string): string | null;
  attrSet(name: string, value: string): void;
}

/** The part of a markdown-it instance this module uses. */
export interface MdLike {
  core: { ruler: { push(name: string, rule: (state: { tokens: MdToken[]; env: unknown }) => void): void } };
}

/** What VitePress puts in the render env: the page's absolute path. */
interface PageEnv {
  path?: string;
  relativePath?: string;
}

export interface LinkProblem {
  /** The file the link is in, relative to the repository (`docs/concepts.md`, `README.md`). */
  readonly page: string;
  readonly link: string;
  readonly why: string;
}

const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** The `#` link VitePress puts in each heading (markdown-it-anchor's permalink). */
function isPermalink(t: MdToken): boolean {
  return t.type === 'link_open' && (t.attrGet('class') ?? '').split(' ').includes('header-anchor');
}

/** A heading's text as the slug is made from: its text and code, not the permalink VitePress adds. */
function headingText(children: readonly MdToken[]): string {
  let text = '';
  let inPermalink = false;
  for (const c of children) {
    if (isPermalink(c)) inPermalink = true;
    else if (inPermalink && c.type === 'link_close') inPermalink = false;
    else if (!inPermalink && (c.type === 'text' || c.type === 'code_inline')) text += c.content;
  }
  return text.trim();
}

/**
 * Checks and rewrites the links of every page rendered through its `plugin`; `problems()` then lists
 * what is wrong across all of them (anchors are checked once every page is rendered).
 */
export class LinkChecker {
  private readonly srcDir: string;
  private readonly root: string;
  /** Heading and HTML ids per page, and the ids GitHub would give differently. */
  private readonly ids = new Map<string, Set<string>>();
  private readonly notPortable = new Map<string, Map<string, string>>();
  /** Per page (a page rendered again replaces what it had): anchors to check, problems found. */
  private readonly anchors = new Map<string, { page: string; link: string; target: string; id: string }[]>();
  private readonly found = new Map<string, LinkProblem[]>();

  /**
   * @param root the repository (links may point anywhere inside it)
   * @param srcDir the site's pages (docs/)
   * @param webUrl where the repository's files are browsed: `https://github.com/owner/name`
   * @param branch the branch those links name
   */
  constructor(
    root: string,
    srcDir: string,
    private readonly webUrl: string,
    private readonly branch = 'main',
  ) {
    this.root = path.resolve(root);
    this.srcDir = path.resolve(srcDir);
  }

  /** The markdown-it plugin: `md.use(checker.plugin)` (after VitePress' own anchors). */
  readonly plugin = (md: MdLike): void => {
    md.core.ruler.push('clusterset_links', (state) => {
      const env = state.env as PageEnv;
      const file = env.path ?? (env.relativePath ? path.join(this.srcDir, env.relativePath) : undefined);
      if (!file) return;
      this.scan(path.resolve(file), state.tokens);
    });
  };

  /** Every problem found so far, in page order, then anchors. */
  problems(): LinkProblem[] {
    const out = [...this.found.values()].flat();
    for (const a of [...this.anchors.values()].flat()) {
      const ids = this.ids.get(a.target);
      if (!ids) continue; // a missing page: reported where the link was resolved
      if (!ids.has(a.id)) {
        out.push({
          page: a.page,
          link: a.link,
          why: `docs/${a.target} has no heading with the id "${a.id}"`,
        });
        continue;
      }
      const github = this.notPortable.get(a.target)?.get(a.id);
      if (github !== undefined)
        out.push({
          page: a.page,
          link: a.link,
          why: `the heading's id is "${a.id}" on the site but "${github}" on GitHub: reword the heading (letters, digits, spaces, '-' and ':' only)`,
        });
    }
    return out.sort((x, y) => x.page.localeCompare(y.page) || x.link.localeCompare(y.link));
  }

  private scan(file: string, tokens: MdToken[]): void {
    const page = path.relative(this.srcDir, file).split(path.sep).join('/');
    const ids = new Set<string>();
    const notPortable = new Map<string, string>();
    const seen = new Map<string, number>();
    this.ids.set(page, ids);
    this.notPortable.set(page, notPortable);
    this.found.set(page, []);
    this.anchors.set(page, []);
    const shown = path.relative(this.root, file).split(path.sep).join('/');
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i] as MdToken;
      if (t.type === 'heading_open') {
        const id = t.attrGet('id');
        const inline = tokens[i + 1];
        if (id === null || !inline) continue;
        const text = headingText(inline.children ?? []);
        const base = githubSlug(text);
        const n = seen.get(base) ?? 0;
        seen.set(base, n + 1);
        const github = n === 0 ? base : `${base}-${n}`;
        ids.add(id);
        if (github !== id) notPortable.set(id, github);
      }
      if (t.type === 'html_block' || t.type === 'html_inline') this.htmlIds(t.content, ids);
      for (const c of t.children ?? []) {
        if (c.type === 'html_inline') this.htmlIds(c.content, ids);
        if (c.type === 'link_open' && !isPermalink(c)) this.link(file, page, shown, c);
      }
    }
  }

  private htmlIds(html: string, ids: Set<string>): void {
    for (const m of html.matchAll(/\bid="([^"]+)"/g)) ids.add(m[1] as string);
  }

  private link(file: string, page: string, shown: string, token: MdToken): void {
    const href = token.attrGet('href');
    if (href === null || EXTERNAL.test(href)) return;
    const problem = (why: string): void => void this.found.get(page)?.push({ page: shown, link: href, why });
    const anchor = (target: string, id: string): void =>
      void this.anchors.get(page)?.push({ page: shown, link: href, target, id });
    const hashAt = href.indexOf('#');
    const target = decodeURI(hashAt < 0 ? href : href.slice(0, hashAt)).replace(/\?.*$/, '');
    const id = hashAt < 0 ? undefined : decodeURIComponent(href.slice(hashAt + 1));
    if (target === '') {
      if (id !== undefined) anchor(page, id);
      return;
    }
    if (target.startsWith('/')) {
      problem(
        'write the link relative to this page: a leading / means the site on the site and the repository on GitHub',
      );
      return;
    }
    const resolved = path.resolve(path.dirname(file), target);
    const inRepo = path.relative(this.root, resolved);
    if (inRepo.startsWith('..') || path.isAbsolute(inRepo)) {
      problem('it leads out of the repository');
      return;
    }
    const inDocs = path.relative(this.srcDir, resolved);
    if (!inDocs.startsWith('..') && !path.isAbsolute(inDocs)) {
      // A page of the site: VitePress checks that it exists too; GitHub needs the `.md`.
      if (!target.endsWith('.md')) {
        problem(
          'link to the page\'s .md file (as "./concepts.md"), so that the link works on GitHub as well',
        );
        return;
      }
      if (!fs.existsSync(resolved)) {
        problem(`docs/${inDocs.split(path.sep).join('/')} does not exist`);
        return;
      }
      if (id !== undefined) anchor(inDocs.split(path.sep).join('/'), id);
      return;
    }
    if (!fs.existsSync(resolved)) {
      problem(`${inRepo.split(path.sep).join('/')} does not exist in the repository`);
      return;
    }
    // A file of the repository outside docs/: the site does not serve it, GitHub shows it.
    const kind = fs.statSync(resolved).isDirectory() ? 'tree' : 'blob';
    const rel = inRepo.split(path.sep).join('/');
    token.attrSet(
      'href',
      `${this.webUrl}/${kind}/${this.branch}/${encodeURI(rel)}${id === undefined ? '' : `#${id}`}`,
    );
  }
}

/** Problems as the build prints them, one a line. */
export function formatLinkProblems(problems: readonly LinkProblem[]): string {
  return problems.map((p) => `  ${p.page}: ${p.link}: ${p.why}`).join('\n');
}

/**
 * The most words a paragraph of the site may hold (a list item's paragraph included; code blocks
 * and tables are not paragraphs). The default theme's text column is 688 px of 16 px type on 28 px
 * lines, about 13 words a line: 120 words are some nine lines, a third of a laptop's screen; on a
 * phone (a column of about 330 px, 6 words a line) they are about 20 lines, one screen. Past that a
 * reader scrolls through one block to find the sentence that matters: split it into short
 * paragraphs, a list or a table, the task first and the reference depth below.
 */
export const PARAGRAPH_WORD_LIMIT = 120;

/**
 * Long paragraphs of pages this check cannot split itself, each named by its page (relative to
 * docs/) and its first words: the generated model reference (its paragraphs are lib/model.ts's doc
 * comments, verbatim) and pages kept by others. An entry that no longer finds its long paragraph is
 * itself a problem, so the list only shrinks: split the paragraph, then remove its entry.
 */
export const WALLS_TO_SPLIT: readonly { readonly page: string; readonly start: string }[] = [];

/** A paragraph's words as the reader sees them: its text and code, not the link targets. */
export function paragraphWords(inline: MdToken): string[] {
  let text = '';
  for (const c of inline.children ?? []) {
    if (c.type === 'text' || c.type === 'code_inline') text += c.content;
    else if (c.type === 'softbreak' || c.type === 'hardbreak') text += ' ';
  }
  return text.split(/\s+/).filter((w) => w !== '');
}

export interface LongParagraph {
  /** The page relative to docs/, `/`-separated. */
  readonly page: string;
  /** 1-based line of the paragraph's first line. */
  readonly line: number;
  readonly words: number;
  /** Its first words. */
  readonly start: string;
}

/** Every paragraph of a page's tokens over `limit` words. */
export function longParagraphs(
  page: string,
  tokens: readonly MdToken[],
  limit = PARAGRAPH_WORD_LIMIT,
): LongParagraph[] {
  const out: LongParagraph[] = [];
  for (let i = 0; i < tokens.length - 1; i++) {
    const t = tokens[i] as MdToken;
    if (t.type !== 'paragraph_open') continue;
    const words = paragraphWords(tokens[i + 1] as MdToken);
    if (words.length > limit)
      out.push({
        page,
        line: (t.map?.[0] ?? 0) + 1,
        words: words.length,
        start: words.slice(0, 8).join(' '),
      });
  }
  return out;
}

/**
 * Finds the long paragraphs of every page of `srcDir` rendered through its `plugin` (README.md and
 * CONTRIBUTING.md, rendered for their links, are not pages of the site); `problems()` lists them,
 * less the WALLS_TO_SPLIT, and each entry of that list that no longer finds its paragraph.
 */
export class ParagraphChecker {
  private readonly srcDir: string;
  /** Per page (a page rendered again replaces what it had). */
  private readonly found = new Map<string, LongParagraph[]>();

  constructor(
    srcDir: string,
    private readonly limit = PARAGRAPH_WORD_LIMIT,
    private readonly allowed: readonly { readonly page: string; readonly start: string }[] = WALLS_TO_SPLIT,
  ) {
    this.srcDir = path.resolve(srcDir);
  }

  readonly plugin = (md: MdLike): void => {
    md.core.ruler.push('clusterset_paragraphs', (state) => {
      const env = state.env as PageEnv;
      const file = env.path ?? (env.relativePath ? path.join(this.srcDir, env.relativePath) : undefined);
      if (!file) return;
      const page = path.relative(this.srcDir, path.resolve(file));
      if (page.startsWith('..') || path.isAbsolute(page)) return;
      const rel = page.split(path.sep).join('/');
      this.found.set(rel, longParagraphs(rel, state.tokens, this.limit));
    });
  };

  /** One line per paragraph too long, and per allowance that finds none; in page order. */
  problems(): string[] {
    const out: string[] = [];
    const used = new Set<number>();
    for (const [page, walls] of [...this.found].sort(([a], [b]) => a.localeCompare(b)))
      for (const w of walls) {
        const at = this.allowed.findIndex((a) => a.page === page && w.start.startsWith(a.start));
        if (at >= 0) {
          used.add(at);
          continue;
        }
        out.push(
          `docs/${page}:${w.line}: a paragraph of ${w.words} words ("${w.start} …"), over ${this.limit}: split it into short paragraphs, a list or a table`,
        );
      }
    this.allowed.forEach((a, i) => {
      if (!used.has(i) && this.found.has(a.page))
        out.push(
          `docs/${a.page}: no paragraph over ${this.limit} words starts "${a.start}" any more: remove it from WALLS_TO_SPLIT (scripts/docs/site.ts)`,
        );
    });
    return out;
  }
}

/** The part of markdown-it's renderer `mermaidFence` replaces. */
export interface MdRendererLike {
  renderer: {
    rules: {
      fence?: (tokens: MdToken[], idx: number, options: unknown, env: unknown, self: unknown) => string;
    };
  };
}

/**
 * Renders each ```mermaid block as `<Mermaid code="…"/>`, the theme's component
 * (docs/.vitepress/theme/Mermaid.vue), which draws it in the browser; every other block as before.
 * The source travels URI-encoded, so that nothing in it reads as HTML or as Vue's `{{ }}`.
 */
export function mermaidFence(md: MdRendererLike): void {
  const fence = md.renderer.rules.fence;
  md.renderer.rules.fence = (tokens, idx, options, env, self) => {
    const t = tokens[idx] as MdToken;
    if (t.info.trim() === 'mermaid') return `<Mermaid code="${encodeURIComponent(t.content)}" />\n`;
    if (!fence) throw new Error('mermaidFence: markdown-it has no fence rule to fall back on');
    return fence(tokens, idx, options, env, self);
  };
}
