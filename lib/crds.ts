/**
 * The vendored CRDs (crds/, copied from ../shared/crds; see crds/SOURCES.md). Read once, on first use.
 * Rendered into bundles that must install them (validators are precompiled from them by
 * `npm run import`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';

export const CRD_DIR = path.resolve(__dirname, '..', 'crds');

export interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: {
    group: string;
    names: { kind: string; plural: string };
    scope: 'Namespaced' | 'Cluster';
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      schema?: { openAPIV3Schema: Record<string, unknown> };
    }[];
  };
}

const cache = new Map<string, Crd>();

export function loadCrd(file: string): Crd {
  let crd = cache.get(file);
  if (!crd) {
    crd = yaml.load(fs.readFileSync(path.join(CRD_DIR, file), 'utf8')) as Crd;
    cache.set(file, crd);
  }
  return crd;
}
