/**
 * Colour on a terminal only (lib/colour.ts): the decision for every combination of TTY, NO_COLOR,
 * FORCE_COLOR and TERM; and the CLI itself, piped (plain, even with FORCE_COLOR, which uvu sets for
 * every child), and on a real pseudo-terminal from util-linux `script` (coloured, unless NO_COLOR).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runSources } from './helpers/cli';
import { colourEnabled, painter } from '../lib/colour';

const ESC = '\u001b[';
const tty = { isTTY: true };
const pipe = { isTTY: false };

test('GIVEN a terminal WHEN nothing is set THEN colour is on; piped, it is off', () => {
  assert.ok(colourEnabled(tty, {}));
  assert.not.ok(colourEnabled(pipe, {}));
  assert.not.ok(colourEnabled({}, {}));
});

test('GIVEN NO_COLOR set to anything but "" WHEN on a terminal THEN colour is off, even with FORCE_COLOR', () => {
  assert.not.ok(colourEnabled(tty, { NO_COLOR: '1' }));
  assert.not.ok(colourEnabled(tty, { NO_COLOR: 'yes', FORCE_COLOR: '1' }));
  // no-color.org: an empty NO_COLOR does not count.
  assert.ok(colourEnabled(tty, { NO_COLOR: '' }));
});

test('GIVEN FORCE_COLOR WHEN piped THEN colour stays off (not honoured); TERM=dumb turns it off on a terminal', () => {
  assert.not.ok(colourEnabled(pipe, { FORCE_COLOR: '1' }));
  assert.ok(colourEnabled(tty, { FORCE_COLOR: '0' }));
  assert.not.ok(colourEnabled(tty, { TERM: 'dumb' }));
});

test('GIVEN a painter WHEN enabled THEN SGR codes wrap the text; disabled THEN the text is unchanged', () => {
  assert.is(painter(true).red('x'), `${ESC}31mx${ESC}39m`);
  assert.is(painter(true).dim('x'), `${ESC}2mx${ESC}22m`);
  assert.is(painter(false).red('x'), 'x');
});

const root = path.resolve(__dirname, '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
const cli = path.join(root, 'lib', 'cli', 'main.ts');
/** `diff` against a directory that does not exist: every object is new, so every line has a mark. */
const DIFF = ['diff', 'clusterset.ts', '--out', path.join(root, '.no-such-out-dir')];

function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const k of ['NO_COLOR', 'FORCE_COLOR'] as const) if (!(k in extra)) delete e[k];
  return e;
}

test('GIVEN stdout piped, with FORCE_COLOR=1 WHEN diff runs THEN no escape codes', () => {
  const plain = runSources(DIFF, { env: env({ FORCE_COLOR: '1' }) });
  assert.is(plain.status, 0, plain.stderr);
  assert.match(plain.stdout, /^ {2}\+ ClusterSet kube-system\/prod-set$/m);
  assert.not.ok(plain.stdout.includes(ESC));
});

/** The command run on a pseudo-terminal (util-linux `script`): what a person at a terminal sees. */
function onTerminal(args: string[], extra: Record<string, string>): string {
  const cmd = [tsx, cli, ...args].map((a) => `'${a}'`).join(' ');
  const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { cwd: root, encoding: 'utf8', env: env(extra) });
  assert.is(r.status, 0, r.stderr);
  return r.stdout;
}

test('GIVEN a real terminal WHEN diff runs THEN it is coloured; with NO_COLOR=1 THEN it is not', () => {
  const coloured = onTerminal(DIFF, {});
  assert.ok(coloured.includes(`${ESC}32m+ ClusterSet kube-system/prod-set`));
  // The Impact list's "- " bullets are not removals: never red.
  assert.match(coloured, /^ {2}- member central joins/m);
  const plain = onTerminal(DIFF, { NO_COLOR: '1' });
  assert.match(plain, /\+ ClusterSet kube-system\/prod-set/);
  assert.not.ok(plain.includes(ESC));
});

test('GIVEN model problems on a terminal WHEN validate runs THEN the headline is red; piped THEN plain', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-colour-'));
  try {
    const file = path.join(dir, 'bad.json');
    fs.writeFileSync(file, '{"clusterSetId":"x"}');
    const cmd = `'${tsx}' '${cli}' validate '${file}'`;
    const term = spawnSync('script', ['-qec', cmd, '/dev/null'], {
      cwd: root,
      encoding: 'utf8',
      env: env({}),
    });
    assert.ok(term.stdout.includes(`${ESC}31m${ESC}1m3 problems in ${file}`), term.stdout);
    const piped = spawnSync(tsx, [cli, 'validate', file], { cwd: root, encoding: 'utf8', env: env({}) });
    assert.is(piped.status, 2);
    assert.match(piped.stderr, /^clusterset: 3 problems in /);
    assert.not.ok(piped.stderr.includes(ESC));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
