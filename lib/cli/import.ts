/**
 * `clusterset import --leader-context C [--member ID=CONTEXT ...] [--kubeconfig F] [--format ts|yaml]
 * [--out FILE] [--force] [--report FILE] [--report-format text|json] [--timeout S]`: adopts a
 * running Antrea ClusterSet. Reads the leader and each member named, with GET and LIST only and
 * never a Secret's data (lib/import/read.ts: metadata or names only), then writes the model of what runs
 * (lib/import/model.ts, emit.ts) to `--out` or stdout, and the report of what the model cannot say or
 * the cut-over would change (lib/import/report.ts) to stderr or `--report`. `--print-rbac` prints
 * the read-only identity it needs in each cluster, and reads nothing.
 *
 * Exit 0 when the model is written and the report finds no blocker; 1 when it finds blockers (the
 * model is written all the same, the report says why), or when a cluster cannot be reached or
 * refuses a read (nothing is written; the message names the context, and the permission); 2 for
 * usage errors, before any cluster is called: a `--member` that is not ID=CONTEXT or names an ID
 * twice, a context the kubeconfig does not have ("did you mean"), a kubeconfig that cannot be used,
 * an `--out` or `--report` file that exists (without `--force`); 74 when a file cannot be written.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import type * as Emit from '../import/emit';
import type * as Model from '../import/model';
import type * as Read from '../import/read';
import type * as Report from '../import/report';
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
        describe: 'replace an --out or --report file that exists',
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
      .example(
        '$0 import --leader-context hub --member east=east --member west=west --out clusterset.ts',
        'adopt the set: the model to clusterset.ts, the report to stderr',
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
    try {
      if (a['leader-context'] === undefined || a['leader-context'] === '')
        throw new UsageError('--leader-context is required: the context of the leader cluster');
      if (!(a.timeout > 0)) throw new UsageError('--timeout must be a positive number of seconds');
      const members = parseMembers(a.member);
      checkWritable(a.out, '--out', a.force);
      checkWritable(a.report, '--report', a.force);
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
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { importSet } = require('../import/model') as typeof Model;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { renderReport } = require('../import/report') as typeof Report;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { emitModel } = require('../import/emit') as typeof Emit;
    const imported = importSet(snapshot);
    const model = emitModel(imported, a.format);
    const report = renderReport(imported, a['report-format']);
    try {
      if (a.out !== undefined) writeWhole(a.out, model);
      else process.stdout.write(model);
      if (a.report !== undefined) writeWhole(a.report, report);
      else process.stderr.write(report);
    } catch (e) {
      if (!(e instanceof WriteFailure)) throw e;
      process.stderr.write(`clusterset import: ${e.message}\n`);
      process.exitCode = EXIT_IO;
      return;
    }
    process.exitCode = imported.findings.some((f) => f.class === 'blocker') ? 1 : 0;
  },
};
