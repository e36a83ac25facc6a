/**
 * Services in the model's terms: a Service's compiled import in the leader
 * (`<ns>-<name>-service` ResourceImport) makes it importable in every member, with its ports; a
 * member's ServiceExport exports it from that member.
 */
import { describePortChange, describeServicePorts } from '../describe';
import type { DiffObject, ObjectChange } from '../tree';
import { isObj, spec } from './facts';
import { all, type ChangeContext, fieldSummary, objName } from './summary';

/** A Service's import or export, described; false when `o` is neither. */
export function describeServiceObject(ctx: ChangeContext, o: ObjectChange, cluster: string): boolean {
  const { acc, membersAfter, membersBefore } = ctx;
  const s = spec((o.after ?? o.before)!);
  if (o.kind === 'ResourceImport' && s.kind === 'ServiceImport') {
    const svc = `${String(s.namespace)}/${String(s.name)}`;
    const ports = (x: DiffObject | undefined) => {
      const si = spec(x).serviceImport;
      return isObj(si) && isObj(si.spec) ? si.spec.ports : undefined;
    };
    if (o.change === 'added')
      acc.add(
        'services',
        `Service ${svc} (${describeServicePorts(ports(o.after))}) becomes importable in ${all(membersAfter)}`,
        [cluster],
        membersAfter,
      );
    else if (o.change === 'removed')
      acc.add(
        'services',
        `Service ${svc} is no longer importable in ${all(membersBefore)}`,
        [cluster],
        membersBefore,
      );
    else {
      const portChanges = describePortChange(ports(o.before), ports(o.after));
      const rest = o.fields.filter((f) => !f.path.startsWith('spec.serviceImport.spec.ports'));
      const what = [...portChanges, ...(rest.length > 0 ? [fieldSummary(rest)] : [])];
      acc.add(
        'services',
        `Service ${svc} changes in ${all(membersAfter)}: ${what.join('; ')}`,
        [cluster],
        membersAfter,
      );
    }
    return true;
  }
  if (o.kind === 'ServiceExport') {
    const svc = objName(o);
    if (o.change === 'added') acc.add('exports', `Service ${svc} is now exported from {clusters}`, [cluster]);
    else if (o.change === 'removed')
      acc.add('exports', `Service ${svc} is no longer exported from {clusters}`, [cluster]);
    else
      acc.add('exports', `ServiceExport ${svc} changes in {clusters}: ${fieldSummary(o.fields)}`, [cluster]);
    return true;
  }
  return false;
}
