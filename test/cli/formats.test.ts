/**
 * Exit statuses and report formats, the same for every command, run as users run the CLI:
 * 0 ok, 1 findings (stale), 2 usage or model errors; `--format json` and `--format github` for the
 * diagnostics of synth and validate. Warnings: reported in every format (and the PR comment), exit 0
 * and files written; `--strict` makes them errors (exit 2, nothing written or compared).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runBin, type Ran } from '../helpers/cli';
import { annotation } from '../../lib/cli/model';
import { minimalModel } from '../helpers/models';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-formats-'));

const cli = (...args: string[]): Ran => runBin(args, { cwd: dir });

const good = minimalModel();
const bad = minimalModel();
bad.clusters[1]!.id = 'East_1';
bad.services![0]!.ports = [{ name: 'http', port: 70000 }];
fs.writeFileSync(path.join(dir, 'good.json'), JSON.stringify(good));
fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify(bad));
fs.writeFileSync(path.join(dir, 'broken.json'), '{ not json');
// Legal, but almost always a mistake: a cluster left declared after its removal from members.
const warned = minimalModel();
warned.clusters.push({ id: 'old', apiServer: 'https://old.example.com:6443', serviceCIDR: '10.110.0.0/16' });
const warnedText = JSON.stringify(warned, null, 2);
fs.writeFileSync(path.join(dir, 'warn.json'), warnedText);
/** Where clusters[3], the object of "old", starts in warn.json. */
const oldAt = (() => {
  const lines = warnedText.split('\n');
  const line = lines.findIndex((l) => l.includes('"id": "old"')) - 1;
  return { line: line + 1, column: lines[line]!.indexOf('{') + 1 };
})();

test('GIVEN a model with problems WHEN validate --format json runs THEN exit 2 and every diagnostic as JSON on stdout', () => {
  const r = cli('validate', 'bad.json', '--format', 'json');
  assert.is(r.status, 2, r.stderr);
  const out = JSON.parse(r.stdout) as {
    ok: boolean;
    diagnostics: { rule: string; path: string; fix: string }[];
  };
  assert.is(out.ok, false);
  const rules = out.diagnostics.map((d) => `${d.rule} ${d.path}`);
  assert.ok(rules.includes('cluster-id-format clusters[1].id'), rules.join('\n'));
  assert.ok(rules.includes('service-port-range services[0].ports[0].port'), rules.join('\n'));
  assert.ok(out.diagnostics.every((d) => d.fix.length > 0));
});

test('GIVEN a model with problems WHEN synth --format github runs THEN one ::error annotation per diagnostic on stdout, nothing written', () => {
  const r = cli('synth', 'bad.json', '--format', 'github', '--out', 'out-github');
  assert.is(r.status, 2, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.ok(lines.length >= 2);
  // A JSON model's values are located too (line and col), as a .ts model's are.
  for (const l of lines) assert.match(l, /^::error file=bad\.json,line=\d+,col=\d+,title=[a-z-]+::\S/);
  const col = JSON.stringify(bad).indexOf('"East_1"') + 1;
  assert.ok(
    lines.some((l) =>
      l.startsWith(`::error file=bad.json,line=1,col=${col},title=cluster-id-format::clusters[1].id: `),
    ),
    r.stdout,
  );
  assert.match(r.stderr, /problems? in bad\.json; nothing was written/);
  assert.not.ok(fs.existsSync(path.join(dir, 'out-github')));
});

test('GIVEN a model that does not load WHEN validate runs in each format THEN exit 2, and json and github say so in their form', () => {
  assert.is(cli('validate', 'broken.json').status, 2);
  const json = cli('validate', 'broken.json', '--format', 'json');
  assert.is(json.status, 2);
  assert.is(
    (JSON.parse(json.stdout) as { diagnostics: { rule: string }[] }).diagnostics[0]!.rule,
    'model-load',
  );
  const gh = cli('validate', 'broken.json', '--format', 'github');
  assert.is(gh.status, 2);
  assert.match(gh.stdout, /^::error file=broken\.json,title=model-load::/);
});

test('GIVEN a valid model WHEN synth and validate run with --format json THEN exit 0 and ok: true', () => {
  const v = cli('validate', 'good.json', '--format', 'json');
  assert.is(v.status, 0, v.stderr);
  assert.equal(JSON.parse(v.stdout), { ok: true, diagnostics: [] });
  const s = cli('synth', 'good.json', '--format', 'json', '--out', 'out-json');
  assert.is(s.status, 0, s.stderr);
  const out = JSON.parse(s.stdout) as { ok: boolean; files: { written: number } };
  assert.is(out.ok, true);
  assert.ok(out.files.written > 0);
});

test('GIVEN a model with problems WHEN validate --format json runs THEN every diagnostic says its severity', () => {
  const out = JSON.parse(cli('validate', 'bad.json', '--format', 'json').stdout) as {
    diagnostics: { severity: string }[];
  };
  assert.ok(out.diagnostics.length > 0);
  assert.ok(out.diagnostics.every((d) => d.severity === 'error'));
});

test('GIVEN a model with a warning only WHEN validate runs in each format THEN exit 0, and text, json and github report it with its location', () => {
  const t = cli('validate', 'warn.json');
  assert.is(t.status, 0, t.stderr);
  assert.match(t.stdout, /^warn\.json is valid \(1 warning\): 3 clusters, /);
  assert.match(
    t.stderr,
    /1 warning in warn\.json \(legal, but almost always a mistake; --strict makes warnings errors\):/,
  );
  assert.ok(
    t.stderr.includes(
      `  warn.json:${oldAt.line}:${oldAt.column}: warning: clusters[3]: cluster "old" is neither`,
    ),
    t.stderr,
  );

  const j = cli('validate', 'warn.json', '--format', 'json');
  assert.is(j.status, 0, j.stderr);
  const out = JSON.parse(j.stdout) as { ok: boolean; diagnostics: Record<string, unknown>[] };
  assert.is(out.ok, true);
  assert.equal(
    out.diagnostics.map((d) => [d.rule, d.path, d.severity, d.location]),
    [['cluster-unused', 'clusters[3]', 'warning', { file: 'warn.json', ...oldAt }]],
  );
  assert.is(j.stderr, '', 'json keeps stderr for what is not the report');

  const g = cli('validate', 'warn.json', '--format', 'github');
  assert.is(g.status, 0, g.stderr);
  assert.ok(
    g.stdout.startsWith(
      `::warning file=warn.json,line=${oldAt.line},col=${oldAt.column},title=cluster-unused::warning: clusters[3]: `,
    ),
    g.stdout,
  );
});

test('fails with --strict: GIVEN a model with a warning only WHEN validate, synth and synth --check run with --strict THEN exit 2 and nothing is written; WHEN synth runs without it THEN it writes, and a synth that skips the compile still reports the warning', () => {
  const v = cli('validate', 'warn.json', '--strict');
  assert.is(v.status, 2, v.stderr);
  assert.match(
    v.stderr,
    /1 problem \(1 warning, an error under --strict\) in warn\.json; nothing was checked:/,
  );
  const vj = JSON.parse(cli('validate', 'warn.json', '--strict', '--format', 'json').stdout) as {
    ok: boolean;
    diagnostics: { rule: string; severity: string }[];
  };
  assert.is(vj.ok, false);
  assert.equal(
    vj.diagnostics.map((d) => [d.rule, d.severity]),
    [['cluster-unused', 'warning']],
  );
  const vg = cli('validate', 'warn.json', '--strict', '--format', 'github');
  assert.match(vg.stdout, /^::error file=warn\.json,line=\d+,col=\d+,title=cluster-unused::/);

  const strict = cli('synth', 'warn.json', '--strict', '--out', 'out-strict');
  assert.is(strict.status, 2, strict.stderr);
  assert.match(strict.stderr, /; nothing was written:/);
  assert.not.ok(fs.existsSync(path.join(dir, 'out-strict')), 'nothing written under --strict');

  const s = cli('synth', 'warn.json', '--out', 'out-warn');
  assert.is(s.status, 0, s.stderr);
  assert.match(s.stderr, /1 warning in warn\.json/);
  assert.ok(fs.existsSync(path.join(dir, 'out-warn', '.clusterset-index')), 'written despite the warning');
  const again = cli('synth', 'warn.json', '--out', 'out-warn', '--format', 'json');
  assert.is(again.status, 0, again.stderr);
  const o = JSON.parse(again.stdout) as { compiled: boolean; diagnostics: { rule: string }[] };
  assert.is(o.compiled, false, 'the second synth skips the compile');
  assert.equal(
    o.diagnostics.map((d) => d.rule),
    ['cluster-unused'],
    'and reports the warning it recorded',
  );
  assert.is(
    cli('synth', 'warn.json', '--out', 'out-warn', '--strict').status,
    2,
    'strict on a skipped compile',
  );
  const check = cli('synth', 'warn.json', '--out', 'out-warn', '--check', '--strict');
  assert.is(check.status, 2, check.stderr);
  assert.is(cli('synth', 'warn.json', '--out', 'out-warn', '--check').status, 0);
});

test('GIVEN a model with a warning WHEN diff runs THEN the PR comment has a Warnings block and json a warnings list; WHEN diff --strict runs THEN exit 2, nothing compared', () => {
  const md = cli('diff', 'warn.json', '--out', 'out-none', '--format', 'markdown');
  assert.is(md.status, 0, md.stderr);
  assert.match(
    md.stdout,
    /\n#### Warnings\n\n_Legal, but almost always a mistake \(`--strict` makes them errors\):_\n\n- :warning: `clusters\[3\]`: cluster "old" is neither the leader nor a member/,
  );
  assert.match(md.stdout, /\(`cluster-unused`\)\n/);
  assert.match(md.stderr, /1 warning in warn\.json/);
  const j = JSON.parse(cli('diff', 'warn.json', '--out', 'out-none', '--format', 'json').stdout) as {
    warnings?: { rule: string; path: string }[];
  };
  assert.equal(
    j.warnings?.map((w) => `${w.rule} ${w.path}`),
    ['cluster-unused clusters[3]'],
  );
  const good = JSON.parse(cli('diff', 'good.json', '--out', 'out-none', '--format', 'json').stdout) as object;
  assert.not.ok('warnings' in good, 'no warnings key without warnings');
  assert.is(cli('synth', 'warn.json', '--out', 'out-diff').status, 0);
  const same = cli('diff', 'warn.json', '--out', 'out-diff', '--format', 'markdown');
  assert.match(same.stdout, /^### clusterset diff: no changes\n[^]*\n#### Warnings\n[^]*`clusters\[3\]`/);
  const strict = cli('diff', 'warn.json', '--out', 'out-none', '--strict');
  assert.is(strict.status, 2, strict.stderr);
  assert.match(strict.stderr, /in warn\.json; nothing was compared:/);
  assert.is(strict.stdout, '');
});

test('GIVEN a usage error WHEN any command runs THEN exit 2 with the usage, or for an unknown flag a short error', () => {
  for (const args of [['validate', '--format', 'yaml'], []]) {
    const r = cli(...args);
    assert.is(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /Options:/);
  }
  const r = cli('synth', '--bogus');
  assert.is(r.status, 2, r.stderr);
  assert.match(r.stderr, /^clusterset synth: unknown option --bogus\n/);
  assert.not.match(r.stderr, /Options:/);
});

test('GIVEN text with a newline, "%", ":" and "," WHEN made an annotation THEN it is escaped as GitHub requires', () => {
  assert.is(
    annotation('a,b:c.ts', 'r', '50% done\nnext'),
    '::error file=a%2Cb%3Ac.ts,title=r::50%25 done%0Anext',
  );
  assert.is(
    annotation('m.yaml', 'r', 'x', { file: 'm.yaml', line: 3, column: 5 }, 'warning'),
    '::warning file=m.yaml,line=3,col=5,title=r::x',
  );
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

test.run();
