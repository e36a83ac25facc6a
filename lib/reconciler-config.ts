/**
 * The reconciler's compiled config: what it must know of the model, and nothing else. The compiler
 * renders it (`reconcilerConfig` in lib/render/reconciler.ts) into the ConfigMap
 * `clusterset-reconciler-config`, key `config.json`; the reconciler reads it from a file
 * (`--config`, the ConfigMap mounted in its Pod) or from that ConfigMap.
 *
 * This file is the contract between the two: the renderer builds a `ReconcilerConfig`, and
 * `parseReconcilerConfig` refuses anything else with every problem at once.
 */

/** A member of the ClusterSet, as the reconciler sees it. */
export interface ReconcilerMember {
  readonly id: string;
  /** The member's network, or null for the default network. */
  readonly network: string | null;
  readonly endpointIPType: 'ClusterIP' | 'PodIP';
}

/** A Service port as the compiled ServiceImport carries it (Antrea's SvcPortsConverter). */
export interface ReconcilerPort {
  /** '' for an unnamed port. */
  readonly name: string;
  readonly port: number;
  readonly protocol: 'TCP' | 'UDP' | 'SCTP';
}

/** An exported Service: its compiled ports and the members the model lets export it. */
export interface ReconcilerService {
  readonly namespace: string;
  readonly name: string;
  readonly ports: readonly ReconcilerPort[];
  readonly exportedFrom: readonly string[];
}

export interface ReconcilerConfig {
  readonly clusterSetId: string;
  readonly leaderNamespace: string;
  readonly leader: string;
  readonly members: readonly ReconcilerMember[];
  readonly services: readonly ReconcilerService[];
  /**
   * A member whose MemberClusterAnnounce has not been refreshed for this long is retired as
   * Antrea's leader retires it: its announce and its exports are deleted. Antrea: 24 h.
   */
  readonly retireMembersAfterSeconds: number;
  /**
   * Lead only once Antrea's own leader controller is gone from the leader namespace (its Deployment
   * without replicas, its leader webhook configurations deleted), and step down should it come
   * back: the warm standby of a cut-over (antrea-leader.ts). Absent means false; the renderer
   * writes it only when true, so that a config without it keeps its bytes.
   */
  readonly waitForAntreaLeader?: boolean;
}

/** Antrea's leader retires members silent for 24 h (leader/stale_controller.go). */
export const DEFAULT_RETIRE_MEMBERS_AFTER_SECONDS = 24 * 60 * 60;

/** A config that cannot be used, with every problem found. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    readonly source: string,
    readonly problems: readonly string[],
  ) {
    super(`${source} is not a usable reconciler config:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const PROTOCOLS = new Set(['TCP', 'UDP', 'SCTP']);

/**
 * Checks a parsed config and returns it typed, or throws a ConfigError listing every problem with
 * its path. Unknown keys are refused: a newer compiler's config on an older reconciler is an error,
 * not a silent half-reading.
 */
export function parseReconcilerConfig(value: unknown, source: string): ReconcilerConfig {
  const problems: string[] = [];
  const need = (ok: boolean, path: string, what: string) => {
    if (!ok) problems.push(`${path}: ${what}`);
    return ok;
  };
  const known = (o: Json, path: string, keys: readonly string[]) => {
    for (const k of Object.keys(o))
      if (!keys.includes(k)) problems.push(`${path}.${k}: unknown key (known: ${keys.join(', ')})`);
  };
  const str = (o: Json, k: string, path: string) =>
    need(typeof o[k] === 'string' && o[k] !== '', `${path}.${k}`, 'a non-empty string is required');

  if (!isObject(value)) throw new ConfigError(source, ['the config must be a JSON object']);
  known(value, '$', [
    'clusterSetId',
    'leaderNamespace',
    'leader',
    'members',
    'services',
    'retireMembersAfterSeconds',
    'waitForAntreaLeader',
  ]);
  str(value, 'clusterSetId', '$');
  str(value, 'leaderNamespace', '$');
  str(value, 'leader', '$');
  if (value.retireMembersAfterSeconds === undefined)
    value.retireMembersAfterSeconds = DEFAULT_RETIRE_MEMBERS_AFTER_SECONDS;
  need(
    Number.isInteger(value.retireMembersAfterSeconds) && (value.retireMembersAfterSeconds as number) > 0,
    '$.retireMembersAfterSeconds',
    'a positive whole number of seconds is required',
  );
  need(
    value.waitForAntreaLeader === undefined || typeof value.waitForAntreaLeader === 'boolean',
    '$.waitForAntreaLeader',
    'true or false is required',
  );
  const memberIds = new Set<string>();
  if (need(Array.isArray(value.members), '$.members', 'a list is required')) {
    (value.members as unknown[]).forEach((m, i) => {
      const p = `$.members[${i}]`;
      if (!need(isObject(m), p, 'an object is required')) return;
      const o = m as Json;
      known(o, p, ['id', 'network', 'endpointIPType']);
      if (str(o, 'id', p)) {
        need(!memberIds.has(o.id as string), `${p}.id`, `member ${String(o.id)} is listed twice`);
        memberIds.add(o.id as string);
      }
      need(
        o.network === null || typeof o.network === 'string',
        `${p}.network`,
        'a string or null is required',
      );
      need(
        o.endpointIPType === 'ClusterIP' || o.endpointIPType === 'PodIP',
        `${p}.endpointIPType`,
        'ClusterIP or PodIP is required',
      );
    });
  }
  const serviceKeys = new Set<string>();
  if (need(Array.isArray(value.services), '$.services', 'a list is required')) {
    (value.services as unknown[]).forEach((s, i) => {
      const p = `$.services[${i}]`;
      if (!need(isObject(s), p, 'an object is required')) return;
      const o = s as Json;
      known(o, p, ['namespace', 'name', 'ports', 'exportedFrom']);
      if (str(o, 'namespace', p) && str(o, 'name', p)) {
        const key = `${String(o.namespace)}/${String(o.name)}`;
        need(!serviceKeys.has(key), p, `Service ${key} is listed twice`);
        serviceKeys.add(key);
      }
      if (need(Array.isArray(o.ports) && o.ports.length > 0, `${p}.ports`, 'a non-empty list is required')) {
        (o.ports as unknown[]).forEach((port, j) => {
          const q = `${p}.ports[${j}]`;
          if (!need(isObject(port), q, 'an object is required')) return;
          const po = port as Json;
          known(po, q, ['name', 'port', 'protocol']);
          need(typeof po.name === 'string', `${q}.name`, "a string is required ('' when unnamed)");
          need(
            Number.isInteger(po.port) && (po.port as number) >= 1 && (po.port as number) <= 65535,
            `${q}.port`,
            'a port number 1-65535 is required',
          );
          need(PROTOCOLS.has(po.protocol as string), `${q}.protocol`, 'TCP, UDP or SCTP is required');
        });
      }
      if (need(Array.isArray(o.exportedFrom), `${p}.exportedFrom`, 'a list is required')) {
        for (const [j, id] of (o.exportedFrom as unknown[]).entries())
          need(
            typeof id === 'string' && memberIds.has(id),
            `${p}.exportedFrom[${j}]`,
            `${JSON.stringify(id)} is not a listed member`,
          );
      }
    });
  }
  if (problems.length > 0) throw new ConfigError(source, problems);
  return value as unknown as ReconcilerConfig;
}

/** Parses config text (JSON) from a file or ConfigMap. */
export function parseReconcilerConfigText(text: string, source: string): ReconcilerConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(source, [`not JSON: ${(e as Error).message}`]);
  }
  return parseReconcilerConfig(value, source);
}
