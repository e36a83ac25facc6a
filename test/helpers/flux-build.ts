/**
 * What Flux's kustomize-controller applies for one of our Kustomizations: `kustomize build` of its
 * `spec.path` with its `spec.patches`, built by the kustomize that kubectl carries (as the
 * controller builds it with kustomize's API). For tests: proves with kustomize itself what the
 * rendered patches keep and delete.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { dumpYaml, loadYaml } from '../../lib/yaml';

/** A built object, as kustomize prints it. */
export interface BuiltObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  [key: string]: unknown;
}

/**
 * Builds `spec` of a Flux Kustomization against `outDir`, the rendered out/ (its `spec.path` is
 * `./out/clusters/<id>`, or `./clusters/<id>` relative to `outDir`). Scratch files go in `outDir`.
 */
export function fluxBuild(outDir: string, spec: { path: string; patches?: unknown[] }): BuiltObject[] {
  const wrap = fs.mkdtempSync(path.join(outDir, 'wrap-'));
  const target = path.relative(wrap, path.join(outDir, spec.path.replace(/^\.\/(out\/)?/, '')));
  fs.writeFileSync(
    path.join(wrap, 'kustomization.yaml'),
    dumpYaml({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: [target],
      ...(spec.patches ? { patches: spec.patches } : {}),
    }),
  );
  const out = execFileSync('kubectl', ['kustomize', wrap], { encoding: 'utf8' });
  fs.rmSync(wrap, { recursive: true, force: true });
  return out
    .split(/^---$/m)
    .map((d) => loadYaml(d) as BuiltObject | null)
    .filter((o): o is BuiltObject => o !== null);
}
