/**
 * Regenerates everything under generated/ from pinned inputs, and nothing else:
 *  - cdk8s bindings for the CRDs we render, from the vendored copies in crds/ (see crds/SOURCES.md);
 *  - the JSON Schema of the model, from lib/model.ts;
 *  - standalone ajv validators (generated/validators.js) for the CRDs we render.
 *
 * CI runs it and fails when generated/ changes (`npm run import -- --check`).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Ajv from 'ajv';
import standaloneCode from 'ajv/dist/standalone';
import * as yaml from 'js-yaml';
import { type Crd, loadCrd } from '../lib/crds';
import { crdObjectSchema, validatorExportName } from '../lib/validate';

/**
 * cdk8s import drops undefined fields with `reduce((r, i) => ... ({ ...r, [i[0]]: i[1] }), {})`,
 * which copies the object once per field (quadratic in fields, and a third of the render stage's time
 * for rich policies). The same filter, linear; the bindings' types and field names are untouched.
 */
const QUADRATIC_FILTER =
  'return Object.entries(result).reduce((r, i) => (i[1] === undefined) ? r : ({ ...r, [i[0]]: i[1] }), {});';
function linearFilters(source: string): string {
  if (!source.includes(QUADRATIC_FILTER))
    throw new Error('cdk8s import no longer writes the filter this script rewrites');
  return source
    .split(QUADRATIC_FILTER)
    .join('return Object.fromEntries(Object.entries(result).filter((i) => i[1] !== undefined));');
}

const root = path.resolve(__dirname, '..');
const generated = path.join(root, 'generated');

/** Module name -> vendored CRD file. Import only what is rendered: the store CRDs alone are 1.3 MB. */
export const IMPORTS: Readonly<Record<string, string>> = {
  clusterset: 'multicluster.crd.antrea.io_clustersets.yaml',
  clusterclaim: 'multicluster.crd.antrea.io_clusterclaims.yaml',
  resourceimport: 'multicluster.crd.antrea.io_resourceimports.yaml',
  serviceexport: 'multicluster.x-k8s.io_serviceexports.yaml',
  clusternetworkpolicy: 'crd.antrea.io_clusternetworkpolicies.yaml',
  tier: 'crd.antrea.io_tiers.yaml',
  clustergroup: 'crd.antrea.io_clustergroups.yaml',
  application: 'argoproj.io_applications.yaml',
  appproject: 'argoproj.io_appprojects.yaml',
  gitrepository: 'source.toolkit.fluxcd.io_gitrepositories.yaml',
  kustomization: 'kustomize.toolkit.fluxcd.io_kustomizations.yaml',
  clusterproperty: 'about.k8s.io_clusterproperties.yaml',
  externalsecret: 'external-secrets.io_externalsecrets.yaml',
  secretstore: 'external-secrets.io_secretstores.yaml',
};

/**
 * CRDs imported through a pruned copy, generated here from the vendored file: at the schema path
 * given (dot-separated property names), only the last property is kept among its siblings. The
 * SecretStore CRD describes ~40 providers in 676 kB of YAML; its full binding is 1.06 MB of
 * TypeScript and its validator adds 1.9 MB to validators.js, for the one provider we render
 * (Kubernetes). Pruned, the provider's own schema is the vendored one, byte for byte, and the
 * validator refuses any other provider, which we never render.
 */
const PRUNE: Readonly<Record<string, string>> = {
  'external-secrets.io_secretstores.yaml': 'spec.provider.kubernetes',
};

type SchemaNode = { properties?: Record<string, SchemaNode>; required?: string[] };

/** The CRD with, in every version, only the last property of `keep` left among its siblings. */
function pruneCrd(crd: Crd, keep: string): Crd {
  const parts = keep.split('.');
  const last = parts.pop() as string;
  const copy = JSON.parse(JSON.stringify(crd)) as Crd;
  for (const v of copy.spec.versions) {
    let node = v.schema?.openAPIV3Schema as SchemaNode | undefined;
    for (const p of parts) node = node?.properties?.[p];
    const kept = node?.properties?.[last];
    if (!node || !kept) throw new Error(`${crd.metadata.name} ${v.name} has no schema path ${keep}`);
    node.properties = { [last]: kept };
    if (node.required) node.required = node.required.filter((r) => r === last);
  }
  return copy;
}

/** The CRD an import uses: the vendored one, or its pruned copy (see PRUNE). */
function importedCrd(file: string): Crd {
  const keep = PRUNE[file];
  return keep === undefined ? loadCrd(file) : pruneCrd(loadCrd(file), keep);
}

function generate(into: string): void {
  fs.mkdirSync(into, { recursive: true });
  const cdk8s = path.join(root, 'node_modules', '.bin', 'cdk8s');
  for (const [name, file] of Object.entries(IMPORTS)) {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-import-'));
    try {
      let source = path.join(root, 'crds', file);
      if (PRUNE[file] !== undefined) {
        source = path.join(tmp, 'pruned', file);
        fs.mkdirSync(path.dirname(source));
        fs.writeFileSync(source, yaml.dump(importedCrd(file), { noRefs: true, lineWidth: -1 }));
      }
      execFileSync(
        cdk8s,
        [
          'import',
          `${name}:=${source}`,
          '-l',
          'typescript',
          '-o',
          tmp,
          '--save=false',
          '--check-upgrade=false',
        ],
        { cwd: tmp, stdio: 'pipe' },
      );
      const [out] = fs.readdirSync(tmp).filter((f) => f.endsWith('.ts'));
      if (!out) throw new Error(`cdk8s import produced nothing for ${file}`);
      const pruned = PRUNE[file] !== undefined ? ` (pruned to ${PRUNE[file]})` : '';
      const banner = `// Generated by scripts/import.ts from crds/${file}${pruned}. Do not edit.\n/* eslint-disable */\n`;
      fs.writeFileSync(
        path.join(into, `${name}.ts`),
        banner + linearFilters(fs.readFileSync(path.join(tmp, out), 'utf8')),
      );
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  // Standalone ajv validators for the CRDs we render: compiling them at run time costs seconds.
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, code: { source: true } });
  const exportsByName: Record<string, string> = {};
  for (const file of Object.values(IMPORTS)) {
    const crd = importedCrd(file);
    for (const v of crd.spec.versions) {
      if (!v.served || !v.schema) continue;
      const key = `${crd.spec.group}/${v.name}/${crd.spec.names.kind}`;
      ajv.addSchema(crdObjectSchema(v.schema.openAPIV3Schema), key);
      exportsByName[validatorExportName(key)] = key;
    }
  }
  fs.writeFileSync(
    path.join(into, 'validators.js'),
    `// Generated by scripts/import.ts from crds/. Do not edit.\n/* eslint-disable */\n${standaloneCode(ajv, exportsByName)}`,
  );
  const schema = execFileSync(
    path.join(root, 'node_modules', '.bin', 'ts-json-schema-generator'),
    [
      '--path',
      path.join(root, 'lib', 'model.ts'),
      '--type',
      'ClusterSetProps',
      '--tsconfig',
      path.join(root, 'tsconfig.json'),
      '--no-type-check',
      '--no-top-ref',
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const model = JSON.parse(schema) as unknown;
  proseDefaultsToDescriptions(model);
  fs.writeFileSync(path.join(into, 'model.schema.json'), JSON.stringify(model, null, 2) + '\n');
}

/**
 * `@default - prose` in lib/model.ts documents what happens when a field is unset; the schema
 * generator copies it into `default`, which editors then offer as a completion value. Prose moves to
 * the end of the description (`Default: …`); real values (`'2.7.0'`, `5m`) stay defaults.
 */
function proseDefaultsToDescriptions(node: unknown): void {
  if (Array.isArray(node)) {
    for (const x of node) proseDefaultsToDescriptions(x);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const n = node as Record<string, unknown>;
  const d = n.default;
  if (typeof d === 'string' && (d.startsWith('- ') || d.includes(' - '))) {
    const prose = d.startsWith('- ') ? d.slice(2) : d;
    const description = typeof n.description === 'string' ? `${n.description.replace(/\.?\s*$/, '.')} ` : '';
    n.description = `${description}Default: ${prose}.`;
    delete n.default;
  }
  for (const v of Object.values(n)) proseDefaultsToDescriptions(v);
}

function listFiles(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
}

function main(): void {
  const check = process.argv.includes('--check');
  if (!check) {
    fs.rmSync(generated, { recursive: true, force: true });
    generate(generated);
    console.log(`generated/ regenerated: ${listFiles(generated).join(', ')}`);
    return;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-generated-'));
  try {
    generate(tmp);
    const a = listFiles(generated);
    const b = listFiles(tmp);
    const stale = [...new Set([...a, ...b])].filter(
      (f) =>
        !a.includes(f) ||
        !b.includes(f) ||
        !fs.readFileSync(path.join(generated, f)).equals(fs.readFileSync(path.join(tmp, f))),
    );
    if (stale.length > 0) {
      console.error(
        `generated/ is stale (${stale.join(', ')}): run \`npm run import\` and commit the result.`,
      );
      process.exit(1);
    }
    console.log('generated/ is up to date.');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main();
