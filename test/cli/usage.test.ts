/**
 * The CLI's usage surface as a user meets it: a mistyped command, and an unknown flag, name the
 * nearest command or flag in a short error (exit 2, EXIT_USAGE) instead of the whole help, and the
 * command does not run; so does a mistyped cluster ID in every command that takes one; `--help`
 * still lists every command; `clusterset completion` prints yargs'
 * bash and zsh scripts, and the bash script, sourced in a real bash, completes `clusterset sy` to
 * `synth`, while `completion --help` prints its help; `clusterset version` (and `--version`) prints
 * the package version, Node's and the default reconciler image, as text or JSON, loading none of
 * the compiler; `synth` says "1 file written" for one file.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import { unknownFlags } from '../../lib/cli/main';
import * as assert from 'uvu/assert';
import { runSources, type Ran } from '../helpers/cli';
import { DEFAULT_RECONCILER_IMAGE } from '../../lib/names';
import pkg from '../../package.json';

const root = path.resolve(__dirname, '..', '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
const cli = path.join(root, 'lib', 'cli', 'main.ts');

const run = (args: string[], env: NodeJS.ProcessEnv = process.env, cwd = root): Ran =>
  runSources(args, { env, cwd });

test('fails GIVEN a mistyped command (synht) WHEN run THEN a two-line error suggests synth, no help, exit 2', () => {
  const r = run(['synht']);
  assert.is(r.status, 2);
  assert.is(r.stdout, '');
  assert.is(
    r.stderr,
    'clusterset: unknown command "synht"; did you mean synth?\n(`clusterset --help` lists the commands)\n',
  );
});

test('fails GIVEN a mistyped cluster ID (esat) WHEN token, explain --cluster, status --context-for and import --check --member take it THEN each says did you mean "east", exit 2, before any cluster is called', () => {
  const env = { ...process.env, KUBECONFIG: '/nonexistent' };
  const cases: [string, string[]][] = [
    ['token', ['token', 'esat']],
    ['explain', ['explain', '--cluster', 'esat']],
    ['status', ['status', '--context-for', 'esat=ctx']],
    [
      'import',
      [
        'import',
        '--check',
        '--model',
        'clusterset.ts',
        '--leader-context',
        'hub',
        ...['esat', 'west', 'central', 'edge'].flatMap((id) => ['--member', `${id}=${id}`]),
        '--snapshot',
        path.join(os.tmpdir(), 'cs-usage-never-written.json'),
      ],
    ],
  ];
  for (const [what, args] of cases) {
    const r = run(args, env);
    assert.is(r.status, 2, `${what}: ${r.stderr}`);
    assert.is(r.stdout, '', what);
    assert.match(r.stderr, '"esat"', what);
    assert.match(r.stderr, /; did you mean "east"\?\n$/, `${what}: ${r.stderr}`);
  }
});

test('fails GIVEN a word near no command WHEN run THEN the short error has no suggestion, exit 2', () => {
  const r = run(['frobnicate']);
  assert.is(r.status, 2);
  assert.is(r.stderr, 'clusterset: unknown command "frobnicate"\n(`clusterset --help` lists the commands)\n');
});

test("fails GIVEN an extra argument to a real command WHEN run THEN that command's help and the message, exit 2", () => {
  const r = run(['validate', 'clusterset.ts', 'extra']);
  assert.is(r.status, 2);
  assert.match(r.stderr, /^clusterset validate \[model\]/);
  assert.match(r.stderr, /\nUnknown argument: extra\n$/);
});

test('fails GIVEN a mistyped flag (synth --outt) WHEN run THEN a two-line error names the nearest flag of synth, no help, exit 2, and synth does not run', () => {
  const r = run(['synth', '--outt', 'elsewhere']);
  assert.is(r.status, 2);
  assert.is(r.stdout, '');
  assert.is(
    r.stderr,
    'clusterset synth: unknown option --outt; did you mean --out?\n(`clusterset synth --help` lists its options)\n',
  );
  // validate would print "… is valid" on stdout had it run.
  const v = run(['validate', 'clusterset.ts', '--formt', 'json']);
  assert.is(v.status, 2);
  assert.is(v.stdout, '');
  assert.match(v.stderr, /^clusterset validate: unknown option --formt; did you mean --format\?\n/);
});

test('fails GIVEN flags near nothing, and one before any command WHEN run THEN each is named once, without help', () => {
  const r = run(['explain', '--zzzzzz', '-q']);
  assert.is(r.status, 2);
  assert.is(
    r.stderr,
    'clusterset explain: unknown option --zzzzzz\nclusterset explain: unknown option -q\n(`clusterset explain --help` lists its options)\n',
  );
  const top = run(['--frob']);
  assert.is(top.status, 2);
  assert.is(
    top.stderr,
    'clusterset: unknown option --frob\n(`clusterset --help` lists the commands and options)\n',
  );
  // A known flag negated is not unknown.
  assert.equal(unknownFlags(['synth', '--no-force', '--out=x', '--', '--zz'], new Set(['force', 'out'])), []);
});

test('fails GIVEN a mistyped action of image (image biuld) WHEN run THEN it names build, exit 2', () => {
  const r = run(['image', 'biuld']);
  assert.is(r.status, 2);
  assert.is(
    r.stderr,
    'clusterset image: unknown action "biuld"; did you mean build?\n(`clusterset image --help` lists the actions)\n',
  );
});

test('GIVEN `completion --help` WHEN run THEN the help of completion is printed, not the script', () => {
  const r = run(['completion', '--help'], { ...process.env, SHELL: '/bin/bash' });
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /^clusterset completion \[shell\]\n/);
  assert.match(r.stdout, /bash or zsh; default: from \$SHELL/);
  assert.not.match(r.stdout, /begin-clusterset-completions|_clusterset_yargs_completions/);
});

test('GIVEN `version`, `version --format json`, `-o json` and `--version` WHEN run THEN the package version, Node and the default image', () => {
  const text = run(['version']);
  assert.is(text.status, 0, text.stderr);
  assert.is(
    text.stdout,
    `clusterset: ${pkg.version}\nnode: ${process.version}\ndefault reconciler image: ${DEFAULT_RECONCILER_IMAGE} (\`clusterset image build\` builds it from this package)\n`,
  );
  const want = {
    clusterset: pkg.version,
    node: process.version,
    defaultReconcilerImage: DEFAULT_RECONCILER_IMAGE,
  };
  for (const args of [
    ['version', '--format', 'json'],
    ['version', '-o', 'json'],
    ['version', '--output=json'],
  ]) {
    const r = run(args);
    assert.is(r.status, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout), want, args.join(' '));
  }
  assert.is(run(['--version']).stdout, `${pkg.version}\n`);
});

test('GIVEN version, image build --dry-run and completion WHEN run in-process THEN none of the compiler modules is loaded', () => {
  const probe = [
    "const { main } = require('./lib/cli/main.ts');",
    '(async () => {',
    '  for (const argv of [["version"], ["completion", "bash"], ["image", "build", "--tag", "x@y"]]) await main(argv).catch(() => {});',
    '  const heavy = Object.keys(require.cache).filter((f) => /[\\/\\\\](cdk8s|cdk8s-plus-33|ajv)[\\/\\\\]|[\\/\\\\]lib[\\/\\\\](render|compile|plan)/.test(f));',
    '  process.stderr.write(JSON.stringify(heavy));',
    '})();',
  ].join('\n');
  const r = spawnSync(tsx, ['-e', probe], { cwd: root, encoding: 'utf8' });
  assert.is(r.stderr.slice(r.stderr.lastIndexOf('[')), '[]', r.stderr);
  assert.match(r.stdout, /^clusterset: /, 'version ran');
});

test('GIVEN --help WHEN run THEN every command is listed, completion among them, and nothing is reported', () => {
  const r = run(['--help']);
  assert.is(r.status, 0, r.stderr);
  for (const c of [
    'synth',
    'validate',
    'diff',
    'explain',
    'init',
    'token',
    'reconcile',
    'completion',
    'image',
    'version',
  ])
    assert.match(r.stdout, new RegExp(`^ {2}clusterset ${c}\\b`, 'm'));
  assert.not.match(r.stdout + r.stderr, /Did you mean|Unknown/);
});

test('GIVEN `completion` under bash, and `completion zsh` WHEN run THEN the matching yargs script is printed', () => {
  const bash = run(['completion'], { ...process.env, SHELL: '/bin/bash' });
  assert.is(bash.status, 0, bash.stderr);
  assert.match(bash.stdout, /^###-begin-clusterset-completions-###/);
  assert.match(bash.stdout, /clusterset --get-yargs-completions/);
  assert.match(bash.stdout, /complete -o bashdefault -o default -F _clusterset_yargs_completions clusterset/);
  const zsh = run(['completion', 'zsh'], { ...process.env, SHELL: '/bin/bash' });
  assert.is(zsh.status, 0, zsh.stderr);
  assert.match(zsh.stdout, /^#compdef clusterset\n/);
  assert.match(zsh.stdout, /compdef _clusterset_yargs_completions clusterset/);
  // $SHELL decides when no shell is named.
  assert.match(
    run(['completion'], { ...process.env, SHELL: '/usr/bin/zsh' }).stdout,
    /^#compdef clusterset\n/,
  );
});

test('fails GIVEN `completion fish` WHEN run THEN it names the shells it knows, exit 2', () => {
  const r = run(['completion', 'fish']);
  assert.is(r.status, 2);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /unknown shell "fish"; the shells are bash, zsh/);
});

test('GIVEN the bash script sourced in bash WHEN `clusterset sy` is completed THEN the only candidate is synth', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-completion-'));
  try {
    // `clusterset` on PATH, as an installed package puts it there.
    const bin = path.join(dir, 'clusterset');
    fs.writeFileSync(bin, `#!/bin/sh\nexec '${tsx}' '${cli}' "$@"\n`, { mode: 0o755 });
    const script = path.join(dir, 'completion.bash');
    fs.writeFileSync(script, run(['completion', 'bash']).stdout);
    const complete = (words: string[]): string[] => {
      const r = spawnSync(
        'bash',
        [
          '-c',
          `source '${script}'; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _clusterset_yargs_completions; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: 'utf8', env: { ...process.env, PATH: `${dir}:${process.env.PATH}`, SHELL: '/bin/bash' } },
      );
      assert.is(r.status, 0, r.stderr);
      return r.stdout.split('\n').filter(Boolean);
    };
    assert.equal(complete(['clusterset', 'sy']), ['synth']);
    assert.equal(complete(['clusterset', 'ex']), ['explain']);
    assert.equal(complete(['clusterset', 'explain', '--cl']), ['--cluster']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('GIVEN zsh asking for completions WHEN `clusterset sy` is queried THEN synth comes with its description', () => {
  const r = run(['--get-yargs-completions', 'clusterset', 'sy'], { ...process.env, SHELL: '/usr/bin/zsh' });
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /^synth:render the ClusterSet into one bundle per cluster$/m);
});

test('GIVEN one file of out/ edited by hand WHEN synth --force runs THEN it says "1 file written"', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-plural-'));
  try {
    fs.copyFileSync(path.join(root, 'clusterset.ts'), path.join(dir, 'clusterset.ts'));
    fs.symlinkSync(path.join(root, 'lib'), path.join(dir, 'lib'));
    assert.is(run(['synth', 'clusterset.ts'], process.env, dir).status, 0);
    const kustomization = path.join(dir, 'out', 'clusters', 'hub', 'kustomization.yaml');
    fs.appendFileSync(kustomization, '# edited\n');
    const r = run(['synth', 'clusterset.ts', '--force'], process.env, dir);
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stdout, /: 1 file written, \d+ unchanged, 0 pruned/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
