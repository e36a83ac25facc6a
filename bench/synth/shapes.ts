/**
 * The benchmark's shapes, by name (what `--sizes` takes):
 * - `CxS`, e.g. `200x1000`: C clusters and S Services, the default synthetic model;
 * - `c<N>`, e.g. `c4000`: N clusters and 1,000 Services (the default model otherwise; each Service
 *   exported from 2-3 members, 5 baseline and 10 stretched policies);
 * - `policies<N>` (`policies` = `policies1000`): N baseline and N stretched policies with several
 *   rules each (3 ingress and 3-4 egress, several peers of each kind, port ranges, ClusterGroups)
 *   over 20 clusters and 100 Services; each stretched policy targets 5 of the 10 members that
 *   enable stretched NetworkPolicy;
 * - `exporters<N>` (`exporters` = `exporters50`): 60 clusters and 500 Services, each exported from N
 *   of the 59 members (on two networks).
 *
 * A family is a series of one shape at growing scale, for `npm run bench:growth`.
 */
import type { ClusterSetProps } from '../../lib/model';
import { synthetic } from './model';

export interface Shape {
  /** What `--sizes` takes, and what reports show. */
  readonly name: string;
  readonly model: () => ClusterSetProps;
  /** The family's scale variable at this shape (clusters, policies of each kind, exporters per Service). */
  readonly scale: number;
  /** Timed repetitions by default: 2 for the big shapes. */
  readonly reps: number;
}

const C_SERVICES = 1000;
const POLICY_CLUSTERS = 20;
const POLICY_SERVICES = 100;
const EXPORTER_CLUSTERS = 60;
const EXPORTER_SERVICES = 500;

export function parseShape(spec: string): Shape {
  const s = spec.trim();
  let m = /^(\d+)x(\d+)$/.exec(s);
  if (m) {
    const [clusters, services] = [Number(m[1]), Number(m[2])];
    return {
      name: s,
      model: () => synthetic(clusters, services),
      scale: clusters,
      reps: clusters * services >= 100_000 ? 2 : 3,
    };
  }
  m = /^c(\d+)$/.exec(s);
  if (m) {
    const clusters = Number(m[1]);
    return {
      name: s,
      model: () => synthetic(clusters, C_SERVICES),
      scale: clusters,
      reps: 2,
    };
  }
  m = /^policies(\d*)$/.exec(s);
  if (m) {
    const n = m[1] ? Number(m[1]) : 1000;
    return {
      name: s,
      model: () =>
        synthetic(POLICY_CLUSTERS, POLICY_SERVICES, {
          baselinePolicies: n,
          stretchedPolicies: n,
          richPolicies: true,
        }),
      scale: n,
      reps: 2,
    };
  }
  m = /^exporters(\d*)$/.exec(s);
  if (m) {
    const n = m[1] ? Number(m[1]) : 50;
    return {
      name: s,
      model: () => synthetic(EXPORTER_CLUSTERS, EXPORTER_SERVICES, { exporters: n }),
      scale: n,
      reps: 2,
    };
  }
  throw new Error(
    `--sizes: "${s}" is not CLUSTERSxSERVICES (e.g. 50x500), c<CLUSTERS> (e.g. c4000), policies[<N>] or exporters[<N>]`,
  );
}

export function parseShapes(spec: string): Shape[] {
  return spec.split(',').map(parseShape);
}

export interface Family {
  readonly name: string;
  /** What `scale` counts. */
  readonly variable: string;
  readonly shapes: readonly string[];
}

/** The families of `npm run bench:growth`: each doubles its scale variable, the rest fixed. */
export const FAMILIES: readonly Family[] = [
  {
    name: 'clusters',
    variable: `clusters (${C_SERVICES} Services)`,
    shapes: ['c500', 'c1000', 'c2000', 'c4000'],
  },
  {
    name: 'policies',
    variable: `baseline and stretched policies each (${POLICY_CLUSTERS} clusters, ${POLICY_SERVICES} Services)`,
    shapes: ['policies250', 'policies500', 'policies1000'],
  },
  {
    name: 'exporters',
    variable: `exporters per Service (${EXPORTER_CLUSTERS} clusters, ${EXPORTER_SERVICES} Services)`,
    shapes: ['exporters12', 'exporters25', 'exporters50'],
  },
];
