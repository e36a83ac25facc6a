/**
 * Exit statuses and report formats, the same for every command, run as users run the CLI:
 * 0 ok, 1 findings (stale), 2 usage or model errors; `--format json` and `--format github` for the
 * diagnostics of synth and validate.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { annotation } from '../../lib/cli/model';
import { minimalModel } from '../helpers/models';

const root = path.resolve(__dirname, '..', '..');
const bin = path.join(root, 'bin', 'clusterset');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-formats-'));

function cli(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const good = minimalModel();
const bad = minimalModel();
bad.clusters[1]!.id = 'East_1';
bad.services![0]!.ports = [{ name: 'http', port: 70000 }];
fs.writeFileSync(path.join(dir, 'good.json'), JSON.stringify(good));
fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify(bad));
fs.writeFileSync(path.join(dir, 'broken.json'), '{ not json');

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
  for (const l of lines) assert.match(l, /^::error file=bad\.json,title=[a-z-]+::\S/);
  assert.ok(
    lines.some((l) => l.startsWith('::error file=bad.json,title=cluster-id-format::clusters[1].id: ')),
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
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

test.run();
