/**
 * The report of `clusterset import`: what the live ClusterSet holds that the model cannot say or
 * that the cut-over would change, as findings classed by what they mean for the migration:
 *
 * - `blocker`: the cut-over must not go ahead until it is resolved (an import would be deleted, a
 *   member identity is shared, Antrea is too old to adopt, the model does not compile, ...);
 * - `change`: the cut-over changes something a member sees (an import's spec, a member ClusterSet's
 *   leader, a label identity); each is applied in place, never by deleting an import;
 * - `info`: worth knowing, changes nothing a member sees.
 *
 * Pure: text or JSON out, the CLI prints it.
 */
import { CLASS_ORDER, type FindingClass, type Imported } from './findings';
import { runbook, type RunbookContexts } from './runbook';

const HEADINGS: Readonly<Record<FindingClass, string>> = {
  blocker: 'Blockers: resolve each before the cut-over',
  change: 'Changes the cut-over makes that members see (each in place; nothing is deleted)',
  info: 'For information',
};

function counts(i: Imported): Record<FindingClass, number> {
  const n = { blocker: 0, change: 0, info: 0 };
  for (const f of i.findings) n[f.class]++;
  return n;
}

/**
 * The report; with `contexts` (what the import read through), the cut-over runbook too, each step
 * with its check, once nothing blocks it.
 */
export function renderReport(i: Imported, format: 'text' | 'json', contexts?: RunbookContexts): string {
  const n = counts(i);
  const steps = contexts !== undefined && n.blocker === 0 ? runbook(i.model, contexts) : undefined;
  if (format === 'json') {
    return `${JSON.stringify(
      {
        clusterSetId: i.model.clusterSetId,
        ready: n.blocker === 0,
        counts: n,
        findings: i.findings.map((f) => ({
          class: f.class,
          code: f.code,
          ...(f.path !== undefined ? { path: f.path } : {}),
          message: f.message,
          ...(f.fix !== undefined ? { fix: f.fix } : {}),
        })),
        ...(steps !== undefined ? { runbook: steps } : {}),
      },
      null,
      2,
    )}\n`;
  }
  const lines: string[] = [
    `clusterset import: ClusterSet ${i.model.clusterSetId}, leader ${i.model.leader}, ` +
      `members ${i.model.members.join(', ') || '(none)'}`,
    `${n.blocker} blocker(s), ${n.change} change(s), ${n.info} note(s): ` +
      (n.blocker === 0
        ? 'nothing blocks the cut-over; review the changes, then follow the runbook (docs/import.md).'
        : 'the cut-over must wait until every blocker is resolved and the import is run again.'),
  ];
  for (const cls of CLASS_ORDER) {
    const fs = i.findings.filter((f) => f.class === cls);
    if (fs.length === 0) continue;
    lines.push('', `${HEADINGS[cls]}:`);
    for (const f of fs) {
      lines.push(`- [${f.code}]${f.path !== undefined ? ` ${f.path}:` : ''} ${f.message}`);
      if (f.fix !== undefined) lines.push(`  fix: ${f.fix}`);
    }
  }
  if (steps !== undefined) lines.push('', ...steps);
  return `${lines.join('\n')}\n`;
}
