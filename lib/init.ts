/**
 * `clusterset init`: the files of a new gitops repository, as a pure function of a few answers.
 *
 * What it scaffolds is a working repository, not a template to fill in: the starter model passes
 * every check, `npm run synth` renders it, and the CI workflow's `synth --check` passes on the
 * first commit. The CLI (lib/cli/init.ts) writes these files and then renders `out/` once, so the
 * first commit already holds the Argo CD root Application.
 */

/** Answers that shape the scaffold. */
export interface InitOptions {
  /** npm package name of the gitops repo (lowercase, from the directory name). */
  readonly packageName: string;
  /** The ClusterSet ID of the starter model. */
  readonly clusterSetId: string;
  /** The git URL Argo CD and Flux read the repo from. */
  readonly repoURL: string;
  /** The branch they follow. */
  readonly branch: string;
  /** How package.json names the clusterset dependency: a semver range, `file:…`, `git+https:…`. */
  readonly clustersetSpec: string;
}

import { DEPENDENCY_FIELDS, declaredSpec } from './install-source';
import { DEFAULT_ANTREA_VERSION, DEFAULT_RECONCILER_IMAGE } from './names';
import { version as packageVersion } from '../package.json';

/** The model file the scaffold's scripts compile. */
export const MODEL_FILE = 'clusterset.ts';
/** The TypeScript the scaffold type-checks its model with (`npm run typecheck`). */
const TYPESCRIPT_RANGE = '^5.9.3';

/** The CI workflow path (GitHub Actions). */
export const WORKFLOW_FILE = '.github/workflows/clusterset.yml';
/**
 * The actionlint the scaffold's workflow lints its workflows with (`go run …@version`), the one
 * clusterset's own test command builds (test/actionlint/go.mod; test/workflows checks they agree).
 */
export const ACTIONLINT_VERSION = 'v1.7.12';

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

const scripts = (): Record<string, string> => ({
  synth: `clusterset synth ${MODEL_FILE}`,
  check: `clusterset synth ${MODEL_FILE} --check`,
  diff: `clusterset diff ${MODEL_FILE}`,
  explain: `clusterset explain ${MODEL_FILE}`,
  typecheck: 'tsc --noEmit',
});

function packageJson(o: InitOptions): string {
  return json({
    name: o.packageName,
    private: true,
    description: `GitOps repository of the ${o.clusterSetId} Antrea Multi-cluster ClusterSet`,
    scripts: scripts(),
    devDependencies: { clusterset: o.clustersetSpec, typescript: TYPESCRIPT_RANGE },
  });
}

type Json = Record<string, unknown>;
const record = (v: unknown): Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};

/** The scaffold's package.json merged into one that exists. */
export interface PackageJsonMerge {
  readonly content: string;
  /** The clusterset spec the merged file declares. */
  readonly spec: string;
  /** What of the existing file stayed, for the output: `clusterset file:…`, `scripts test`, … */
  readonly kept: readonly string[];
  /** Scripts of the scaffold's names the file already has with other commands (replaced). */
  readonly replaced: readonly string[];
}

/**
 * The scaffold's package.json over an existing one: every field the user wrote stays; the scaffold
 * adds its scripts (replacing a script of the same name, which the caller only allows with
 * --force) and its dev dependencies where none is declared. The clusterset spec already declared
 * stays unless `override` (init --from), where it is replaced in place.
 */
export function mergePackageJson(existing: Json, o: InitOptions, override: boolean): PackageJsonMerge {
  const fresh = JSON.parse(packageJson(o)) as Json;
  const identity = ['name', 'private', 'description'];
  // The scaffold's name and description where the file has none, first, as npm init orders them.
  const out: Json = {
    ...Object.fromEntries(identity.filter((k) => !(k in existing)).map((k) => [k, fresh[k]])),
    ...existing,
  };
  const kept: string[] = identity.filter((k) => k in existing);
  const declared = declaredSpec(existing);
  let spec = o.clustersetSpec;
  if (declared === undefined) {
    out.devDependencies = { ...record(existing.devDependencies), clusterset: spec };
  } else if (override) {
    out[declared.field] = { ...record(existing[declared.field]), clusterset: spec };
  } else {
    spec = declared.spec;
    kept.unshift(`clusterset ${spec} (${declared.field})`);
  }
  const ts = declaredSpec(existing, 'typescript');
  if (ts === undefined)
    out.devDependencies = { ...record(out.devDependencies), typescript: TYPESCRIPT_RANGE };
  else kept.push(`typescript ${ts.spec}`);
  const have = record(existing.scripts);
  const ours = scripts();
  const replaced = Object.keys(ours).filter((n) => n in have && have[n] !== ours[n]);
  const otherScripts = Object.keys(have).filter((n) => !(n in ours));
  if (otherScripts.length > 0) kept.push(`scripts ${otherScripts.join(', ')}`);
  out.scripts = { ...have, ...ours };
  const otherDeps = DEPENDENCY_FIELDS.flatMap((f) =>
    Object.keys(record(existing[f])).filter((d) => d !== 'clusterset' && d !== 'typescript'),
  );
  if (otherDeps.length > 0) kept.push(`dependencies ${otherDeps.join(', ')}`);
  kept.push(
    ...Object.keys(existing).filter((k) => ![...identity, 'scripts', ...DEPENDENCY_FIELDS].includes(k)),
  );
  return { content: json(out), spec, kept, replaced };
}

function tsconfig(): string {
  return json({
    compilerOptions: {
      target: 'ES2022',
      module: 'commonjs',
      moduleResolution: 'node',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    },
    include: [MODEL_FILE],
  });
}

/** A quoted TypeScript string literal. */
function ts(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function starterModel(o: InitOptions): string {
  return `/**
 * The ${o.clusterSetId} ClusterSet. \`npm run synth\` compiles it into out/; commit both.
 *
 * Start here: replace the clusters with yours (API server URLs as members and Argo CD reach them,
 * Service and Pod CIDRs), then export Services and add policies. \`npm run explain\` shows what the
 * model means; \`npm run diff\` shows what an edit changes.
 */
import type { ClusterSetProps } from 'clusterset';

const clusterSet: ClusterSetProps = {
  clusterSetId: ${ts(o.clusterSetId)},
  // The Antrea release the clusters run (the compiler's default): checks refuse what it cannot do.
  antreaVersion: ${ts(DEFAULT_ANTREA_VERSION)},
  leader: 'hub',
  members: ['east', 'west'],
  clusters: [
    { id: 'hub', apiServer: 'https://hub.example.com:6443', serviceCIDR: '10.96.0.0/16' },
    {
      id: 'east',
      apiServer: 'https://east.example.com:6443',
      serviceCIDR: '10.97.0.0/16',
      enableStretchedNetworkPolicy: true,
    },
    {
      id: 'west',
      apiServer: 'https://west.example.com:6443',
      serviceCIDR: '10.98.0.0/16',
      enableStretchedNetworkPolicy: true,
    },
  ],
  services: [
    // Importable in every member as demo/antrea-mc-echo, backed by east's and west's endpoints.
    { namespace: 'demo', name: 'echo', ports: [{ name: 'http', port: 8080 }], exportedFrom: ['east', 'west'] },
  ],
  baselinePolicies: [
    {
      // Every member gets it, replicated through the leader.
      name: 'demo-isolation',
      tier: 'baseline',
      priority: 100,
      appliedTo: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'demo' } } }],
      ingress: [
        {
          name: 'same-namespace',
          action: 'Allow',
          from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'demo' } } }],
        },
        { name: 'drop-others', action: 'Drop', from: [{ namespaceSelector: {} }] },
      ],
    },
  ],
  stretchedPolicies: [
    {
      // Lets demo clients in any cluster of the set call echo in east and west.
      name: 'echo-from-clusterset',
      tier: 'application',
      priority: 10,
      appliedTo: [
        {
          podSelector: { matchLabels: { app: 'echo' } },
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'demo' } },
        },
      ],
      ingress: [
        {
          name: 'demo-clients',
          action: 'Allow',
          from: [
            {
              scope: 'ClusterSet',
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'demo' } },
            },
          ],
          ports: [{ port: 8080 }],
        },
      ],
    },
  ],
  // Antrea's install keeps its member controller ConfigMap and the application teams the demo
  // Namespace (no takeOver): \`npm run explain\` prints the settings that ConfigMap must hold and the
  // Namespaces each member needs. takeOver: { memberControllerConfig: true, serviceNamespaces: true }
  // renders both into the bundles instead; take them out of their other owner first.
  //
  // The reconciler image, which the leader's reconciler and each member's restart Job run. Unset, it
  // is ${DEFAULT_RECONCILER_IMAGE}, which exists only once that release of clusterset is
  // published: before the first merge, build it from the installed package and push it to a registry
  // the nodes reach (\`npx clusterset image build --tag <registry>/clusterset:${packageVersion} --push\`),
  // then pin the digest that prints here (the pull request's Before merge block says so too):
  // reconciler: { image: '<registry>/clusterset@sha256:<digest>', imagePullSecrets: ['<Secret>'] },
  delivery: {
    repoURL: ${ts(o.repoURL)},
    branch: ${ts(o.branch)},
    // Argo CD runs in the leader; the other clusters are registered with it.
    managementCluster: 'hub',
    // Delivered by Argo CD. For Flux instead: argocd: { enabled: false }, flux: {}. Once one tool
    // delivers, that edit's pull request comment lists the switch in its After merge block, in order.
    flux: { enabled: false },
  },
};

export default clusterSet;
`;
}

function workflow(o: InitOptions): string {
  return `# Checks that out/ matches ${MODEL_FILE} and posts what a pull request changes, per cluster.
name: clusterset

on:
  push:
    branches: [${JSON.stringify(o.branch)}]
  pull_request:

permissions:
  contents: read
  pull-requests: write

jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - name: What this pull request changes
        if: github.event_name == 'pull_request'
        run: npx clusterset diff ${MODEL_FILE} --base "origin/$BASE_REF" --format markdown > clusterset-diff.md
        env:
          BASE_REF: \${{ github.base_ref }}
      - name: Post it on the pull request
        if: github.event_name == 'pull_request'
        # Pull requests from forks get a read-only token; the check below still runs.
        continue-on-error: true
        run: >-
          gh pr comment "$PR" --body-file clusterset-diff.md --edit-last
          || gh pr comment "$PR" --body-file clusterset-diff.md
        env:
          GH_TOKEN: \${{ github.token }}
          PR: \${{ github.event.pull_request.number }}
      - name: The model type-checks
        run: npm run typecheck
      - name: out/ is up to date
        run: npx clusterset synth ${MODEL_FILE} --check --format github
      - uses: actions/setup-go@v5
        with:
          go-version: stable
          cache: false
      - name: The workflows lint clean
        run: go run github.com/rhysd/actionlint/cmd/actionlint@${ACTIONLINT_VERSION}
`;
}

function readme(o: InitOptions): string {
  return `# ${o.packageName}

The ${o.clusterSetId} Antrea Multi-cluster ClusterSet, compiled by clusterset from \`${MODEL_FILE}\`
into \`out/\` (one bundle per cluster, plus the Argo CD and Flux objects that deliver them).

\`\`\`sh
npm install
npm run synth     # render out/ from ${MODEL_FILE}; commit both
npm run check     # what CI runs (npx clusterset check): fails when out/ is stale
npm run diff      # what your edit changes, per cluster
npm run explain   # what the model means: exports, imports, policies, reachability
\`\`\`

Every pull request gets a comment with the per-cluster effect of the change (${WORKFLOW_FILE}).

clusterset is installed from \`${o.clustersetSpec}\` (package.json; package-lock.json pins its exact
contents). To change version, install another tarball: \`npm pack\` in a clusterset checkout, put
the \`.tgz\` in \`vendor/\`, \`npm install --save-dev ./vendor/clusterset-<version>.tgz\` (or, once
clusterset is on your npm registry, \`npm install --save-dev clusterset@<version>\`). A git URL does
not work: npm would install clusterset without its compiled \`dist/\`, and it would not run. Then
\`npm run synth\` and commit package.json, package-lock.json and \`out/\` together: the pull
request's comment shows what the new compiler changes.

## Delivery

Argo CD runs in the management cluster named in \`delivery\`. Bootstrap it once:

\`\`\`sh
kubectl apply -k out/argocd   # the AppProject and root Application; it creates one Application per cluster
\`\`\`

To deliver with Flux instead, set \`argocd: { enabled: false }, flux: {}\` in \`delivery\`, run
\`npm run synth\`, and bootstrap with \`kubectl apply -k out/flux\` (the GitRepository and one
Kustomization per cluster). Once one tool delivers, switching is a pull request like any other: its
comment's "After merge" block bootstraps the new tool, gives it what reaches the clusters, waits
until it delivers every bundle, and only then deletes the old tool's objects without deleting what
they applied. Follow it in order.

Re-run the Argo CD command when a change adds a cluster or a kind: the AppProject permits only what
the bundles hold, and it is never synced from git.

Flux reaches the other clusters through kubeconfig Secrets named \`<cluster>-kubeconfig\` in
\`flux-system\`; create them by hand, they never go into git.

Members read the leader through a token the leader creates; \`npx clusterset token MEMBER\` copies it
from the leader to the member without printing it.

## Before a member's first sync

Antrea's member controller ConfigMap (\`kube-system/antrea-mc-controller-config\`) stays Antrea's
install's: put the \`controller_manager_config.yaml\` that
\`npx clusterset explain ${MODEL_FILE} --cluster <member>\` prints in it, then restart
\`antrea-mc-controller\`. The Namespaces of exported Services stay the application teams': they
must exist before a member's bundle applies (its sync is retried until they do). \`takeOver\` in
\`${MODEL_FILE}\` makes the bundles render either one instead. The pull request that adds a member
lists, in its comment's "After merge" block, the Namespaces to create there and the settings
Antrea's agent and controller must have for it, as \`explain\` does.
`;
}

/** Every file of the scaffold, relative path → content, in a stable order. */
export function scaffold(o: InitOptions): ReadonlyMap<string, string> {
  return new Map([
    ['package.json', packageJson(o)],
    ['tsconfig.json', tsconfig()],
    [MODEL_FILE, starterModel(o)],
    [WORKFLOW_FILE, workflow(o)],
    ['.gitignore', 'node_modules/\nout/.clusterset-cache\n'],
    ['README.md', readme(o)],
  ]);
}

/** An npm package name from a directory name: lowercase, URL-safe, never empty. */
export function packageNameFrom(dirName: string): string {
  const name = dirName
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|[-]+$/g, '');
  return name || 'gitops';
}
