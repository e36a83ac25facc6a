/**
 * Exported Services: names, namespaces, ports and exporters.
 */
import {
  DEFAULT_LEADER_NAMESPACE,
  DEFAULT_MEMBER_NAMESPACE,
  DNS1035_LABEL,
  DNS1123_LABEL,
  IMPORT_PREFIX,
  SYSTEM_NAMESPACES,
  serviceImportName,
} from '../names';
import {
  clusterById,
  duplicates,
  memberIds,
  objects,
  orClosest,
  quote,
  roleReferencesResolve,
  str,
  strings,
} from './util';
import { type Rule, rule, LABEL_WORDS, checkName, serviceKey } from './rule';

export const serviceRules: readonly Rule[] = [
  rule(
    'service-name-format',
    'Exported Service names are DNS-1035 labels of at most 53 characters.',
    'Members import the Service as antrea-mc-<name>, which must be a Service name of at most 63 characters; a ' +
      'longer or malformed name is refused by the API server in every importing member.',
    (m, report) => {
      for (const s of objects(m.services, 'services')) {
        checkName(
          report,
          `${s.path}.name`,
          s.value.name,
          'Service name',
          53,
          DNS1035_LABEL,
          "lowercase letters, digits and '-', starting with a letter and ending with a letter or digit",
        );
      }
    },
  ),
  rule(
    'service-namespace-format',
    "Exported Services' namespaces are DNS-1123 labels.",
    "Antrea's leader webhook refuses Service ResourceExports whose namespace is not a DNS-1123 label.",
    (m, report) => {
      for (const s of objects(m.services, 'services')) {
        checkName(
          report,
          `${s.path}.namespace`,
          s.value.namespace,
          'namespace',
          63,
          DNS1123_LABEL,
          LABEL_WORDS,
        );
      }
    },
  ),
  rule(
    'service-duplicate',
    'Each (namespace, name) Service is declared once.',
    'Two declarations compile to one ResourceImport with two port lists; the second overwrites the first.',
    (m, report) => {
      for (const { first, dup } of duplicates(objects(m.services, 'services'), serviceKey)) {
        report(
          dup.path,
          `Service ${quote(serviceKey(dup.value))} is already declared at ${first.path}`,
          'declare each Service once, listing every exporting member in its exportedFrom',
        );
      }
    },
  ),
  rule(
    'service-import-name-collision',
    'No two Services give the same `<namespace>-<name>-service` ResourceImport name.',
    "Antrea names imports by plain concatenation: the first Service's export wins the name and the other one gets " +
      'a permanent ConvergeFailure, so it is never imported anywhere.',
    (m, report) => {
      const named = objects(m.services, 'services').filter((s) => serviceKey(s.value) !== undefined);
      const importName = (s: { namespace: string; name: string }) => serviceImportName(s.namespace, s.name);
      for (const { first, dup } of duplicates(named, importName)) {
        if (serviceKey(first.value) === serviceKey(dup.value)) continue;
        report(
          dup.path,
          `Service ${quote(serviceKey(dup.value))} and Service ${quote(serviceKey(first.value))} (${first.path}) ` +
            `both become ResourceImport ${quote(importName(dup.value))}`,
          'rename one of the two Services or move it to another namespace',
        );
      }
    },
  ),
  rule(
    'service-import-prefix-collision',
    'No exported Service is named antrea-mc-<x> beside an exported Service <x> in the same namespace.',
    'Members import <ns>/<x> as Service and Endpoints <ns>/antrea-mc-<x>; where the real <ns>/antrea-mc-<x> exists, ' +
      'Antrea refuses the import ("the Service conflicts with existing one") and <x> has no backends there.',
    (m, report) => {
      const named = objects(m.services, 'services').filter((s) => serviceKey(s.value) !== undefined);
      const byKey = new Map(named.map((s) => [serviceKey(s.value)!, s]));
      for (const s of named) {
        const { namespace, name } = s.value;
        if (!name.startsWith(IMPORT_PREFIX)) continue;
        const original = byKey.get(`${namespace}/${name.slice(IMPORT_PREFIX.length)}`);
        if (!original) continue;
        report(
          `${s.path}.name`,
          `Service ${quote(serviceKey(s.value))} has the name members give the import of ${quote(serviceKey(original.value))} ` +
            `(${original.path}): the two collide in every member that has both`,
          `rename ${quote(serviceKey(s.value))}: names starting with ${quote(IMPORT_PREFIX)} belong to Antrea's imports`,
        );
      }
    },
  ),
  rule(
    'service-system-namespace',
    'Services are not exported from system namespaces (kube-system, kube-public, kube-node-lease, the leader and member controller namespaces).',
    'The member bundle would declare a system Namespace under the delivery tool, and members would import antrea-mc-<name> ' +
      "Services and Endpoints beside the cluster's own control-plane objects.",
    (m, report) => {
      const system = new Set([
        ...SYSTEM_NAMESPACES,
        str(m.leaderNamespace) ?? DEFAULT_LEADER_NAMESPACE,
        str(m.memberNamespace) ?? DEFAULT_MEMBER_NAMESPACE,
      ]);
      for (const s of objects(m.services, 'services')) {
        const ns = str(s.value.namespace);
        if (ns === undefined || !system.has(ns)) continue;
        report(
          `${s.path}.namespace`,
          `Service ${quote(serviceKey(s.value) ?? ns)} is in system namespace ${quote(ns)}, which is not exported`,
          'export it from an application namespace: run the Service (or a selector-less Service pointing at it) there',
        );
      }
    },
  ),
  rule(
    'service-export-not-member',
    'Services are exported only from members.',
    'A cluster that is not a member runs no member controller and has no identity in the leader: its ServiceExport ' +
      'is never turned into a ResourceExport, so the Service silently has no endpoints from it.',
    (m, report) => {
      const members = memberIds(m);
      const byId = clusterById(m);
      // While a member names no declared cluster, the cluster it meant is not a member yet:
      // member-unknown reports the name, and this rule judges only IDs that are no cluster at all.
      const resolved = roleReferencesResolve(m);
      for (const s of objects(m.services, 'services')) {
        for (const x of strings(s.value.exportedFrom, `${s.path}.exportedFrom`)) {
          if (members.has(x.value)) continue;
          const known = byId.has(x.value);
          if (known && !resolved) continue;
          report(
            x.path,
            known
              ? `cluster ${quote(x.value)} exports ${quote(serviceKey(s.value))} but is not a member`
              : `${quote(x.value)} is not the ID of any cluster`,
            known
              ? `add ${quote(x.value)} to members, or remove it from exportedFrom`
              : orClosest(x.value, members, 'name a member in exportedFrom'),
          );
        }
      }
    },
  ),
  rule(
    'service-exported-from-empty',
    'Every exported Service has at least one exporting member.',
    'A ServiceImport with no exporter gives importing members an antrea-mc-<name> Service without endpoints: ' +
      'connections to it fail.',
    (m, report) => {
      for (const s of objects(m.services, 'services')) {
        if (Array.isArray(s.value.exportedFrom) && s.value.exportedFrom.length === 0) {
          report(
            `${s.path}.exportedFrom`,
            `Service ${quote(serviceKey(s.value))} is exported from no member`,
            'list the members that export it, or remove the Service',
          );
        }
      }
    },
  ),
  rule(
    'service-port-name-duplicate',
    'Port names are unique within a Service.',
    'Kubernetes refuses the imported antrea-mc-<name> Service when two ports share a name.',
    (m, report) => {
      for (const s of objects(m.services, 'services')) {
        const ports = objects(s.value.ports, `${s.path}.ports`);
        for (const { first, dup } of duplicates(ports, (p) => str(p.name) || undefined)) {
          report(
            `${dup.path}.name`,
            `port name ${quote(dup.value.name)} is already used by ${first.path}`,
            'give each port of the Service its own name',
          );
        }
      }
    },
  ),
  rule(
    'service-port-duplicate',
    'A (port, protocol) pair appears once within a Service.',
    'Kubernetes refuses the imported antrea-mc-<name> Service when two ports share a number and protocol.',
    (m, report) => {
      for (const s of objects(m.services, 'services')) {
        const ports = objects(s.value.ports, `${s.path}.ports`);
        const key = (p: { port?: unknown; protocol?: unknown }) =>
          typeof p.port === 'number' ? `${p.port}/${str(p.protocol) ?? 'TCP'}` : undefined;
        for (const { first, dup } of duplicates(ports, key)) {
          report(
            `${dup.path}.port`,
            `port ${quote(key(dup.value))} is already declared at ${first.path}`,
            'remove the duplicate port or change its number or protocol',
          );
        }
      }
    },
  ),
  rule(
    'service-port-name-missing',
    'Every port is named when a Service has more than one port.',
    'Kubernetes refuses the imported antrea-mc-<name> Service when one of several ports has no name.',
    (m, report) => {
      for (const s of objects(m.services, 'services')) {
        const ports = objects(s.value.ports, `${s.path}.ports`);
        if (ports.length < 2) continue;
        for (const p of ports) {
          if (str(p.value.name)) continue;
          report(
            `${p.path}.name`,
            `port ${quote(p.value.port)} has no name, but Service ${quote(serviceKey(s.value))} has ${ports.length} ports`,
            'name every port of the Service, as the Service in the exporting clusters does',
          );
        }
      }
    },
  ),
  rule(
    'service-port-range',
    'Port numbers are integers from 1 to 65535.',
    'Kubernetes refuses the imported antrea-mc-<name> Service, and the ServiceImport never gets an IP.',
    (m, report) => {
      for (const s of objects(m.services, 'services')) {
        for (const p of objects(s.value.ports, `${s.path}.ports`)) {
          const port = p.value.port;
          if (typeof port !== 'number' || (Number.isInteger(port) && port >= 1 && port <= 65535)) continue;
          report(
            `${p.path}.port`,
            `port ${quote(port)} is not an integer from 1 to 65535`,
            'use a valid port number',
          );
        }
      }
    },
  ),
];
