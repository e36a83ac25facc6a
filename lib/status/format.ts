/** `clusterset status` as text (a terminal), markdown (an issue or a PR comment) or JSON. */
import { count } from '../plural';
import { DELIVERY_TOOL_NAMES, type ObjectState } from './delivered';
import type { ClusterReport, Condition, PolicyReport, ServiceReport, StatusReport } from './report/types';

export type StatusFormat = 'text' | 'markdown' | 'json';
export const STATUS_FORMATS: readonly StatusFormat[] = ['text', 'markdown', 'json'];

const cond = (c: Condition | undefined): string =>
  c
    ? [c.status === 'True' ? 'Ready' : `not Ready (${c.status})`, c.reason, c.message]
        .filter(Boolean)
        .join(': ')
    : 'no status';

function ref(o: ObjectState): string {
  return `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}

/** A field manager as people know it: the delivery tools by name, anything else as it is. */
const applier = (manager: string): string => DELIVERY_TOOL_NAMES[manager] ?? manager;

/**
 * One object with a problem. Who applied it is said only when the model's delivery names the tools
 * (`tools`) and none of them did: otherwise it is no problem of the object's.
 */
function objectLine(o: ObjectState, tools: readonly string[] | undefined): string {
  const what =
    o.state === 'missing'
      ? 'missing'
      : o.state === 'drifted'
        ? `drifted in ${o.drifted!.map((d) => d.path).join(', ')}`
        : 'matches';
  const by = o.appliedBy ?? o.otherOwners ?? [];
  const owner =
    tools && o.otherOwners && o.state !== 'missing'
      ? `; not applied by ${tools.map(applier).join(' or ')} (${by.length > 0 ? `applied by ${by.join(', ')}` : 'no field manager'})`
      : '';
  return `${ref(o)}: ${what}${owner}`;
}

/**
 * How much of the bundle is there as it renders it, and who applied it: `33 of 33 objects match;
 * applied by Argo CD (33), kubectl (2)`.
 */
function bundleLine(c: ClusterReport): string {
  const d = c.delivered;
  const compared = d.total - d.unread;
  const parts = [`${d.matching} of ${count(compared, 'object')} ${compared === 1 ? 'matches' : 'match'}`];
  if (d.appliedBy.length > 0)
    parts.push(`applied by ${d.appliedBy.map((a) => `${applier(a.manager)} (${a.objects})`).join(', ')}`);
  if (d.unread > 0) parts.push(`${count(d.unread, 'object')} not read (Secrets are never read)`);
  return parts.join('; ');
}

function membershipLine(c: ClusterReport): string | undefined {
  const m = c.membership;
  if (!m) return undefined;
  const a = m.announce.present
    ? `announced ${m.announce.ageSeconds !== undefined ? `${m.announce.ageSeconds} s ago` : '(no touch-ts)'}`
    : 'not announced';
  return `${a}; leader sees it ${cond(m.leaderView)}; its ClusterSet ${cond(m.ready)}`;
}

/** A member's restart Job: `Job clusterset-restart-<digest>: done`, or how far it got and why. */
function restartLine(c: ClusterReport): string | undefined {
  const r = c.restart;
  if (!r) return undefined;
  return `Job ${r.job}: ${r.state}${r.detail ? `: ${r.detail}` : ''}`;
}

/** A member of a ClusterSet being uninstalled: `left`, or what is left of it (`?`: not read). */
function leavingLine(c: ClusterReport): string | undefined {
  const l = c.leaving;
  if (!l) return undefined;
  const parts: [string, number | undefined][] = [
    ['its ClusterSet', l.clusterSet],
    ['its announce in the leader', l.announce],
    ['exports in the leader', l.exports],
    ['imported objects', l.imported],
  ];
  if (parts.every(([, n]) => n === 0)) return 'left';
  return `leaving: ${parts
    .filter(([, n]) => n !== 0)
    .map(([what, n]) => `${n ?? '?'} ${what}`)
    .join(', ')}`;
}

/** The verdict of the first line: the model matched, every member left, or how many problems. */
function verdict(r: StatusReport): string {
  if (!r.ok) return `${r.uninstalling ? 'uninstalling, ' : ''}${count(r.problems.length, 'problem')}`;
  return r.uninstalling ? 'uninstalling: every member has left' : 'matches the model';
}

function reconcilerLine(c: ClusterReport): string | undefined {
  const r = c.reconciler;
  if (!r) return undefined;
  if (!r.holder && r.waitingForAntreaLeader)
    return `standby (reconciler.waitForAntreaLeader): no holder of the Lease while Antrea's leader runs: ${r.waitingForAntreaLeader.join('; ')}`;
  if (!r.holder) return 'no holder of the Lease: the reconciler is not running';
  return `Lease held by ${r.holder}, renewed ${r.renewedSecondsAgo ?? '?'} s ago${r.healthy ? '' : ' (expired)'}`;
}

function exporterText(s: ServiceReport): string {
  return s.exporters
    .map((e) => {
      const c = e.export.condition;
      const st = !e.export.known
        ? 'export unknown'
        : !e.export.present
          ? 'not exported'
          : !c
            ? 'no status yet'
            : c.type === 'Succeeded'
              ? 'Succeeded'
              : `refused: ${[c.reason, c.message].filter(Boolean).join(': ')}`;
      const valid = !e.reachable
        ? ', ServiceExport unknown'
        : e.serviceExport && e.serviceExport.status !== 'True'
          ? `, ServiceExport ${[e.serviceExport.reason, e.serviceExport.message].filter(Boolean).join(': ')}`
          : !e.serviceExportPresent
            ? ', no ServiceExport'
            : '';
      return `${e.cluster} (${st}${valid}, ${count(e.endpoints, 'endpoint')})`;
    })
    .join(', ');
}

function importerText(i: ServiceReport['importers'][number]): string {
  if (!i.present) return 'not imported';
  return `${count(i.endpoints, 'endpoint')}${i.from.length > 0 ? ` from ${i.from.join(', ')}` : ''}`;
}

function policyMemberText(m: PolicyReport['members'][number]): string {
  const bits = [m.present ? 'held' : 'MISSING'];
  if (!m.tierPresent) bits.push(`no Tier ${m.tier}`);
  for (const e of m.events) bits.push(`event: ${e}`);
  return bits.join('; ');
}

export function formatStatusText(r: StatusReport): string {
  const out: string[] = [];
  out.push(`ClusterSet ${r.clusterSet} (leader ${r.leader}) at ${r.at}: ${verdict(r)}`, '');
  for (const c of r.clusters) {
    out.push(`${c.id} (${c.role})`);
    if (!c.reachable) {
      out.push(`  unreachable   ${c.error}`, '');
      continue;
    }
    out.push(`  bundle        ${bundleLine(c)}`);
    for (const o of c.delivered.objects) out.push(`                ${objectLine(o, r.deliveryManagers)}`);
    for (const u of c.unreadable) out.push(`  unreadable    ${u.collection}: ${u.error}`);
    const m = membershipLine(c) ?? leavingLine(c);
    if (m) out.push(`  membership    ${m}`);
    const restart = restartLine(c);
    if (restart) out.push(`  restart       ${restart}`);
    const rec = reconcilerLine(c);
    if (rec) out.push(`  reconciler    ${rec}`);
    if (c.identities)
      out.push(
        `  identities    ${count(c.identities.labelIdentities, 'label identity', 'label identities')}, ${count(
          c.identities.clusterInfoImports,
          'ClusterInfo import',
        )}`,
      );
    out.push('');
  }
  if (r.services.length > 0) {
    out.push('Services');
    for (const s of r.services) {
      const unreachable = !s.reachable && s.importers.length > 0;
      out.push(`  ${s.namespace}/${s.name}${unreachable ? '  NO MEMBER CAN REACH IT' : ''}`);
      out.push(`    exported by ${exporterText(s)}`);
      for (const i of s.importers) out.push(`    ${i.cluster.padEnd(12)} ${importerText(i)}`);
    }
    out.push('');
  }
  if (r.policies.length > 0) {
    out.push('Policies');
    for (const p of r.policies) {
      out.push(`  ${p.name} (${p.kind}, as ${p.object})`);
      for (const m of p.members) out.push(`    ${m.cluster.padEnd(12)} ${policyMemberText(m)}`);
    }
    out.push('');
  }
  if (r.identities) {
    const i = r.identities;
    out.push(
      'Identities',
      `  label identities  ${i.labelIdentities.exports} exported, ${i.labelIdentities.imports} imported`,
      `  ClusterInfo       ${i.clusterInfos.exports} exported, ${i.clusterInfos.imports} imported`,
      `  refused           ${i.refused.length === 0 ? 'none' : i.refused.join('; ')}`,
      '',
    );
  }
  if (r.problems.length > 0) {
    out.push('Problems');
    for (const p of r.problems) out.push(`  - ${p}`);
    out.push('');
  }
  return out.join('\n');
}

/** A markdown table cell: pipes escaped, newlines flattened. */
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function formatStatusMarkdown(r: StatusReport): string {
  const out: string[] = [];
  out.push(
    `### ClusterSet \`${r.clusterSet}\`: ${verdict(r)}`,
    '',
    `Leader \`${r.leader}\`, read at ${r.at}.`,
    '',
    '| Cluster | Role | Bundle | Membership |',
    '|---|---|---|---|',
  );
  for (const c of r.clusters) {
    const delivered = c.reachable ? bundleLine(c) : `unreachable: ${c.error}`;
    const restart = restartLine(c);
    const m = c.reachable
      ? [
          membershipLine(c) ?? leavingLine(c) ?? reconcilerLine(c) ?? '',
          ...(restart ? [`restart ${restart}`] : []),
        ]
          .filter(Boolean)
          .join('; ')
      : '';
    out.push(`| ${cell(c.id)} | ${c.role} | ${cell(delivered)} | ${cell(m)} |`);
  }
  out.push('');
  const off = r.clusters.flatMap((c) =>
    c.delivered.objects.map((o) => `- \`${c.id}\`: ${objectLine(o, r.deliveryManagers)}`),
  );
  if (off.length > 0) out.push('**Objects with a problem**', '', ...off, '');
  if (r.services.length > 0) {
    out.push('| Service | Exported by | Imported |', '|---|---|---|');
    for (const s of r.services) {
      const imp = s.importers.map((i) => `${i.cluster}: ${importerText(i)}`).join('<br>');
      out.push(
        `| \`${s.namespace}/${s.name}\`${!s.reachable && s.importers.length > 0 ? ' **no member can reach it**' : ''} | ${cell(exporterText(s))} | ${cell(imp)} |`,
      );
    }
    out.push('');
  }
  if (r.policies.length > 0) {
    out.push('| Policy | Kind | Members |', '|---|---|---|');
    for (const p of r.policies)
      out.push(
        `| \`${p.name}\` | ${p.kind} | ${cell(p.members.map((m) => `${m.cluster}: ${policyMemberText(m)}`).join('<br>'))} |`,
      );
    out.push('');
  }
  if (r.identities) {
    const i = r.identities;
    out.push(
      `Label identities: ${i.labelIdentities.exports} exported, ${i.labelIdentities.imports} imported. ` +
        `ClusterInfo: ${i.clusterInfos.exports} exported, ${i.clusterInfos.imports} imported. ` +
        `Refused: ${i.refused.length === 0 ? 'none' : i.refused.map((x) => `\`${cell(x)}\``).join(', ')}.`,
      '',
    );
  }
  if (r.problems.length > 0) {
    out.push('<details open><summary>Problems</summary>', '');
    for (const p of r.problems) out.push(`- ${cell(p)}`);
    out.push('', '</details>', '');
  }
  return out.join('\n');
}

export function formatStatus(r: StatusReport, format: StatusFormat): string {
  if (format === 'json') return `${JSON.stringify(r, null, 2)}\n`;
  return format === 'markdown' ? formatStatusMarkdown(r) : formatStatusText(r);
}
