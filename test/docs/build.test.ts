/**
 * The site's real build (`vitepress build docs` with docs/.vitepress/config.mts) fails on a broken
 * link VitePress itself does not check: a copy of the repository whose docs/ gains one link to an
 * anchor no heading has, and one to a repository file that does not exist, fails to build, naming
 * both. (The build of the committed docs/, which must pass, is `npm run docs:build` in the test
 * command.)
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = path.resolve(__dirname, '..', '..');

test('fails GIVEN docs/ with a broken anchor and a missing repository file WHEN built THEN the build fails naming both', () => {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-docs-build-'));
  try {
    // The repository as the config sees it: docs/ copied, everything else linked.
    for (const e of fs.readdirSync(root)) {
      if (['docs', '.git', '.cache'].includes(e)) continue;
      fs.symlinkSync(path.join(root, e), path.join(copy, e));
    }
    fs.cpSync(path.join(root, 'docs'), path.join(copy, 'docs'), {
      recursive: true,
      filter: (src) => !src.includes(`${path.sep}.vitepress${path.sep}cache`),
    });
    fs.appendFileSync(
      path.join(copy, 'docs', 'concepts.md'),
      '\nSee [nowhere](./delivery.md#no-such-heading) and [a file](../lib/no-such-file.ts).\n',
    );
    const r = spawnSync(
      process.execPath,
      [path.join(root, 'node_modules', 'vitepress', 'bin', 'vitepress.js'), 'build', 'docs'],
      {
        cwd: copy,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      },
    );
    const out = `${r.stdout}${r.stderr}`;
    assert.is.not(r.status, 0, out);
    assert.match(
      out,
      'docs/concepts.md: ./delivery.md#no-such-heading: docs/delivery.md has no heading with the id "no-such-heading"',
    );
    assert.match(
      out,
      'docs/concepts.md: ../lib/no-such-file.ts: lib/no-such-file.ts does not exist in the repository',
    );
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
});

test.run();
