/**
 * `clusterset import --leader-context C [--member ID=CONTEXT ...] [--kubeconfig F] [--format ts|yaml]
 * [--out FILE] [--force] [--report FILE] [--report-format text|json] [--timeout S] [--snapshot FILE]`:
 * adopts a running Antrea ClusterSet. Reads the leader and each member named, with GET and LIST only
 * and never a Secret's data (lib/import/read.ts: metadata or names only), then writes the model of
 * what runs (lib/import/model/, emit.ts) to `--out` or stdout, and the report of what the model
 * cannot say or the cut-over would change (lib/import/report.ts) to stderr or `--report`.
 * `--print-rbac` prints the read-only identity it needs in each cluster, and reads nothing.
 *
 * `--check [--model FILE]` writes no model: it compiles the committed model (./clusterset.ts by
 * default) and prints, per cluster, create / adopt unchanged / adopt with change for every object of
 * every bundle, then every write the reconciler would make as it leads (lib/import/check.ts), to
 * stdout or `--report`. `--snapshot FILE` (with a plain import or `--check`) also writes what must
 * survive the cut-over (every ResourceImport, every member-side imported object: UIDs, ClusterIPs,
 * label IDs, addresses; lib/import/verify.ts); `--verify --snapshot FILE` reads the set again and
 * compares it with that record.
 *
 * Exit 0 when the model is written and the report finds no blocker; with `--check`, when nothing
 * fails; with `--verify`, when every recorded object survived. Exit 1 when the report finds blockers
 * (the model is written all the same, the report says why); with `--check`, on an import that would
 * be deleted, an Endpoints address set or label ID that would change, an export the reconciler would
 * refuse, or a blocker; with `--verify`, on a recorded object deleted or re-created (new UID), a
 * changed ClusterIP or `spec.ips`, a changed label ID, or a changed or empty address set; and when a
 * cluster cannot be reached or refuses a read (nothing is written; the message names the context,
 * and the permission). Exit 2 for usage errors, before any cluster is called: a `--member` that is
 * not ID=CONTEXT or names an ID twice, a context the kubeconfig does not have ("did you mean"), a
 * kubeconfig that cannot be used, an `--out`, `--report` or (to be written) `--snapshot` file that
 * exists (without `--force`), `--check` and `--verify` together, `--verify` without `--snapshot`
 * or with a file that is not such a record, a `--check` model that cannot be loaded or has errors,
 * or a model cluster with no context. Exit 74 when a file cannot be written.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import type * as ModelCheck from '../check';
import { didYouMean } from '../check/util';
import type * as Compile from '../compile';
import type * as Check from '../import/check';
import type * as Emit from '../import/emit';
import type * as Model from '../import/model';
import type * as Read from '../import/read';
import type * as Report from '../import/report';
import type { LiveObject } from '../import/snapshot';
import type * as Verify from '../import/verify';
import type * as Load from '../load';
import type { ClusterSetProps } from '../model';
import { DEFAULT_LEADER_NAMESPACE } from '../names';
import type * as Kubeconfig from '../kubeconfig';
import type { KubeConfig } from '@kubernetes/client-node';

const EXIT_USAGE = 2;
const EXIT_IO = 74;

export const IMPORT_FORMATS = ['ts', 'yaml'] as const;
export const IMPORT_REPORT_FORMATS = ['text', 'json'] as const;

interface ImportArgs {
  'leader-context'?: string;
  member: string[];
  kubeconfig?: string;
  format: (typeof IMPORT_FORMATS)[number];
  out?: string;
  force: boolean;
  report?: string;
  'report-format': (typeof IMPORT_REPORT_FORMATS)[number];
  timeout: number;
  'print-rbac': boolean;
  namespace: string;
  check: boolean;
  model: string;
  snapshot?: string;
  verify: boolean;
}

class UsageError extends Error {}

/** `--member east=ctx-east` → Map of member ID → context. */
export function parseMembers(given: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const g of given) {
    const eq = g.indexOf('=');
    if (eq <= 0 || eq === g.length - 1)
      throw new UsageError(
        `--member ${JSON.stringify(g)}: write ID=CONTEXT (the member's cluster ID, then its context)`,
      );
    const id = g.slice(0, eq);
    if (out.has(id)) throw new UsageError(`--member: ${JSON.stringify(id)} is named twice`);
    out.set(id, g.slice(eq + 1));
  }
  return out;
}

function loadKubeConfig(file: string | undefined): KubeConfig {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { KubeconfigError, loadKubeconfig } = require('../kubeconfig') as typeof Kubeconfig;
  try {
    return loadKubeconfig(file).kc;
  } catch (e) {
    if (!(e instanceof KubeconfigError)) throw e;
    throw new UsageError(
      `${e.message}; pass --kubeconfig (or set $KUBECONFIG to) a kubeconfig with a context for the leader and for each member`,
    );
  }
}

/** Refuses a file that exists, unless --force: before any cluster is read. */
function checkWritable(file: string | undefined, flag: string, force: boolean): void {
  if (file !== undefined && !force && fs.existsSync(file))
    throw new UsageError(`${flag} ${file} exists; nothing was read: pass --force to replace it`);
}

/** Writes `text` to `file` whole (a temporary file renamed into place). */
function writeWhole(file: string, text: string): void {
  const tmp = path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new WriteFailure(`cannot write ${file}: ${(e as Error).message}`);
  }
}

class WriteFailure extends Error {}

/** Writes `text` to `file` (or stdout); false after reporting a write failure (exit 74). */
function emit(text: string, file: string | undefined, fileOnly = false): boolean {
  try {
    if (file !== undefined) writeWhole(file, text);
    else if (!fileOnly) process.stdout.write(text);
    return true;
  } catch (e) {
    if (!(e instanceof WriteFailure)) throw e;
    process.stderr.write(`clusterset import: ${e.message}\n`);
    process.exitCode = EXIT_IO;
    return false;
  }
}

/**
 * The committed model for --check, loaded and checked before any cluster is called: a model that
 * cannot be loaded or has errors, or a cluster of it with no context, is a usage error.
 */
async function loadCommitted(file: string, members: ReadonlyMap<string, string>): Promise<ClusterSetProps> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadModelFile } = require('../load') as typeof Load;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { checkModel } = require('../check') as typeof ModelCheck;
  let input: unknown;
  try {
    input = await loadModelFile(file);
  } catch (e) {
    throw new UsageError(`--model ${file} cannot be loaded: ${(e as Error).message}`);
  }
  const errors = checkModel(input).filter((d) => d.severity !== 'warning');
  if (errors.length > 0)
    throw new UsageError(
      `--model ${file} has ${errors.length} problem(s); nothing was read:\n${errors
        .slice(0, 20)
        .map((d) => `  ${d.path || '(model)'}: ${d.message} [${d.rule}]`)
        .join('\n')}\n(run \`clusterset validate ${file}\` for all of them)`,
    );
  const model = input as ClusterSetProps;
  const missing = model.members.filter((id) => id !== model.leader && !members.has(id));
  // A member ID mistyped in --member (esat=…) is why one is missing: say which it would be.
  const unknown = [...members.keys()].filter((id) => !model.members.includes(id));
  if (missing.length > 0)
    throw new UsageError(
      `--check needs a context for every member of the model: pass ${missing.map((id) => `--member ${id}=CONTEXT`).join(' ')}` +
        unknown
          .map(
            (id) =>
              `; --member ${id}=…: the model has no member ${JSON.stringify(id)}${didYouMean(id, missing)}`,
          )
          .join(''),
    );
  return model;
}

/** What lives under each name the committed model's bundles render, per cluster ID. */
async function readBundleNames(
  read: typeof Read,
  kubeconfig: KubeConfig,
  model: ClusterSetProps,
  leaderContext: string,
  members: ReadonlyMap<string, string>,
  timeout: number,
): Promise<Map<string, readonly LiveObject[]>> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { compile } = require('../compile') as typeof Compile;
  const bundles = compile(model).bundles ?? new Map();
  const out = new Map<string, readonly LiveObject[]>();
  for (const [id, objects] of bundles) {
    const ctx = id === model.leader ? leaderContext : members.get(id);
    if (ctx === undefined) continue;
    const r = read.readerFor(kubeconfig, ctx, timeout * 1000);
    try {
      out.set(id, await read.readRendered(r, objects));
    } finally {
      r.close();
    }
  }
  return out;
}

export const importCommand: CommandModule<object, ImportArgs> = {
  command: 'import',
  describe:
    "read a running Antrea ClusterSet (leader and members, read-only, never a Secret's data) and write its model and a migration report",
  builder: (y: Argv) =>
    y
      .option('leader-context', {
        type: 'string',
        describe: 'context of the leader cluster (required unless --print-rbac)',
      })
      .option('member', {
        type: 'string',
        array: true,
        default: [] as string[],
        describe: 'ID=CONTEXT: a member cluster ID and its context (once per member)',
      })
      .option('kubeconfig', {
        type: 'string',
        describe: 'kubeconfig with those contexts (default: $KUBECONFIG, else ~/.kube/config)',
      })
      .option('format', { choices: IMPORT_FORMATS, default: 'ts' as const, describe: 'model format' })
      .option('out', { type: 'string', describe: 'write the model to this file (default: stdout)' })
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'replace an --out, --report or --snapshot file that exists',
      })
      .option('report', { type: 'string', describe: 'write the report to this file (default: stderr)' })
      .option('report-format', {
        choices: IMPORT_REPORT_FORMATS,
        default: 'text' as const,
        describe: 'report format',
      })
      .option('timeout', { type: 'number', default: 30, describe: 'seconds each request gets to answer' })
      .option('print-rbac', {
        type: 'boolean',
        default: false,
        describe:
          'print the read-only ServiceAccount, ClusterRole and ClusterRoleBinding import needs in each cluster (YAML); read nothing',
      })
      .option('namespace', {
        type: 'string',
        default: 'default',
        describe: 'with --print-rbac: the namespace of the import ServiceAccount',
      })
      .option('check', {
        type: 'boolean',
        default: false,
        describe:
          'write no model: compile --model and print, per cluster, what applying each bundle object would do (create, adopt unchanged, adopt with change) and what the reconciler would write; exit 1 on an import deleted, an address set or label ID changed, an export refused',
      })
      .option('model', {
        type: 'string',
        default: 'clusterset.ts',
        describe: 'with --check: the committed model (TypeScript, JSON or YAML)',
      })
      .option('snapshot', {
        type: 'string',
        describe:
          'write what must survive the cut-over (imports, member-side imported objects: UIDs, ClusterIPs, label IDs, addresses) to this file, as JSON; with --verify, the file to verify against',
      })
      .option('verify', {
        type: 'boolean',
        default: false,
        describe:
          'read the set again and compare it with --snapshot FILE: exit 1 on an object deleted or re-created, a changed ClusterIP, spec.ips or label ID, a changed or empty address set',
      })
      .example(
        '$0 import --leader-context hub --member east=east --member west=west --out clusterset.ts',
        'adopt the set: the model to clusterset.ts, the report to stderr',
      )
      .example(
        '$0 import --check --model clusterset.ts --leader-context hub --member east=east --member west=west --snapshot before.json',
        'what the committed model would do to the running set; record what must survive the cut-over',
      )
      .example(
        '$0 import --verify --snapshot before.json --leader-context hub --member east=east --member west=west',
        'after each cut-over phase: every recorded import and imported object is still there, unchanged',
      )
      .example(
        '$0 import --print-rbac | kubectl apply -f -',
        'the read-only identity, in each cluster',
      ) as unknown as Argv<ImportArgs>,
  handler: async (a) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const read = require('../import/read') as typeof Read;
    if (a['print-rbac']) {
      process.stdout.write(read.importRbacYaml(a.namespace));
      return;
    }
    let snapshot: Awaited<ReturnType<typeof read.readLiveSet>>;
    let committed: ClusterSetProps | undefined;
    let recorded: ReturnType<typeof Verify.parseRecord> | undefined;
    let rendered = new Map<string, readonly LiveObject[]>();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const verify = require('../import/verify') as typeof Verify;
    try {
      if (a['leader-context'] === undefined || a['leader-context'] === '')
        throw new UsageError('--leader-context is required: the context of the leader cluster');
      if (!(a.timeout > 0)) throw new UsageError('--timeout must be a positive number of seconds');
      if (a.check && a.verify) throw new UsageError('--check and --verify are two runs: pass one of them');
      if ((a.check || a.verify) && a.out !== undefined)
        throw new UsageError(`--out: --${a.check ? 'check' : 'verify'} writes no model`);
      if (a.verify && a.snapshot === undefined)
        throw new UsageError('--verify needs --snapshot FILE: the record written before the cut-over');
      const members = parseMembers(a.member);
      checkWritable(a.out, '--out', a.force);
      checkWritable(a.report, '--report', a.force);
      if (!a.verify) checkWritable(a.snapshot, '--snapshot', a.force);
      if (a.verify) {
        try {
          recorded = verify.parseRecord(fs.readFileSync(a.snapshot!, 'utf8'));
        } catch (e) {
          throw new UsageError(`--snapshot ${a.snapshot}: ${(e as Error).message}`);
        }
      }
      if (a.check) committed = await loadCommitted(a.model, members);
      const kubeconfig = loadKubeConfig(a.kubeconfig);
      // Every context is checked before any cluster is called.
      for (const ctx of [a['leader-context'], ...members.values()])
        read.readerFor(kubeconfig, ctx, a.timeout * 1000).close();
      snapshot = await read.readLiveSet({
        kubeconfig,
        leaderContext: a['leader-context'],
        members,
        timeoutMs: a.timeout * 1000,
      });
      if (committed)
        rendered = await readBundleNames(
          read,
          kubeconfig,
          committed,
          a['leader-context'],
          members,
          a.timeout,
        );
    } catch (e) {
      if (e instanceof UsageError || (e instanceof read.ImportReadError && e.usage)) {
        process.stderr.write(`clusterset import: ${e.message}\n`);
        process.exitCode = EXIT_USAGE;
        return;
      }
      if (e instanceof read.ImportReadError) {
        process.stderr.write(`clusterset import: ${e.message}; nothing was written\n`);
        process.exitCode = 1;
        return;
      }
      throw e;
    }
    if (recorded) {
      const result = verify.verifySurvivors(recorded, snapshot);
      if (!emit(verify.renderVerify(result, a['report-format']), a.report)) return;
      process.exitCode = result.ok ? 0 : 1;
      return;
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { importSet } = require('../import/model') as typeof Model;
    if (committed) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { checkSet, renderCheck } = require('../import/check') as typeof Check;
      const result = checkSet(snapshot, committed, rendered);
      if (!emit(renderCheck(result, a['report-format']), a.report)) return;
      if (a.snapshot !== undefined) {
        const ns = committed.leaderNamespace ?? DEFAULT_LEADER_NAMESPACE;
        if (!emit(verify.renderRecord(verify.recordSurvivors(snapshot, ns)), a.snapshot, true)) return;
      }
      process.exitCode = result.ok ? 0 : 1;
      return;
    }

    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { renderReport } = require('../import/report') as typeof Report;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { emitModel } = require('../import/emit') as typeof Emit;
    const imported = importSet(snapshot);
    const model = emitModel(imported, a.format);
    const report = renderReport(imported, a['report-format'], {
      leader: a['leader-context']!,
      members: Object.fromEntries(parseMembers(a.member)),
      ...(a.out !== undefined ? { modelFile: a.out } : {}),
    });
    try {
      if (a.out !== undefined) writeWhole(a.out, model);
      else process.stdout.write(model);
      if (a.report !== undefined) writeWhole(a.report, report);
      else process.stderr.write(report);
      if (a.snapshot !== undefined)
        writeWhole(
          a.snapshot,
          verify.renderRecord(
            verify.recordSurvivors(snapshot, imported.model.leaderNamespace ?? DEFAULT_LEADER_NAMESPACE),
          ),
        );
    } catch (e) {
      if (!(e instanceof WriteFailure)) throw e;
      process.stderr.write(`clusterset import: ${e.message}\n`);
      process.exitCode = EXIT_IO;
      return;
    }
    process.exitCode = imported.findings.some((f) => f.class === 'blocker') ? 1 : 0;
  },
};
