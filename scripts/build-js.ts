/**
 * `npm run build:js` (and `npm pack`/`npm publish`, as the `prepack` script; no install script runs
 * it): compiles lib/ and generated/ to JavaScript in dist/ (tsconfig.build.json), what the package
 * ships and the form the reconciler image runs (`node dist/lib/cli/main.js`, image/Containerfile).
 * tsc emits the JSON that lib/ imports (package.json, generated/model.schema.json); this script
 * copies beside the output what lib/ reads at run time by path instead: generated/validators.js
 * (required by lib/validate.ts) and the vendored CRDs (read by lib/crds.ts), so every command works
 * from dist/; and package-lock.json, which `clusterset image build` installs the image's
 * dependencies from.
 *
 * Then it replaces dist/lib/reconciler/run.js, what `clusterset reconcile` loads, with one bundle
 * (esbuild) of the reconciler and the part of @kubernetes/client-node it uses: KubeConfig with all
 * of its credential handling (kubeconfig files, contexts, in-cluster tokens, exec, OIDC, Azure and
 * GCP plugins, proxies), without the generated API clients and models that client-node's
 * config.js loads for makeApiClient() alone (~40 MB of resident memory the reconciler never uses).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as esbuild from 'esbuild';

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');

fs.rmSync(dist, { recursive: true, force: true });
execFileSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', path.join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
fs.copyFileSync(path.join(root, 'generated', 'validators.js'), path.join(dist, 'generated', 'validators.js'));
fs.cpSync(path.join(root, 'crds'), path.join(dist, 'crds'), { recursive: true });
// The lock the reconciler image installs its dependencies from (`clusterset image build`,
// lib/cli/image.ts): `npm pack` never packs the root package-lock.json, a copy in dist/ it does.
fs.copyFileSync(path.join(root, 'package-lock.json'), path.join(dist, 'package-lock.json'));
for (const required of [
  'lib/cli/main.js',
  'package.json',
  'package-lock.json',
  'generated/model.schema.json',
]) {
  if (!fs.existsSync(path.join(dist, required))) throw new Error(`dist/${required} was not built`);
}

/**
 * The reconciler imports KubeConfig from client-node's index, which re-exports everything: the
 * bundle takes it from config.js, the module that defines it. config.js in turn imports the
 * generated index (every API client and model) for createConfiguration and ServerConfiguration,
 * which only makeApiClient() uses: the bundle gets those two from the files that define them.
 */
const CLIENT_CONFIG = /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]config\.js$/;
let shimmed = 0;
const kubeConfigOnly: esbuild.Plugin = {
  name: 'client-node-kubeconfig-only',
  setup(build) {
    build.onResolve({ filter: /^@kubernetes\/client-node$/ }, (a) => ({
      path: 'index.js',
      namespace: 'client-node',
      pluginData: a.resolveDir,
    }));
    build.onResolve({ filter: /^\.\/gen\/index\.js$/ }, (a) => {
      if (!CLIENT_CONFIG.test(a.importer)) return undefined;
      shimmed++;
      return { path: 'gen/index.js', namespace: 'client-node', pluginData: path.dirname(a.importer) };
    });
    build.onLoad({ filter: /.*/, namespace: 'client-node' }, (a) => ({
      contents:
        a.path === 'index.js'
          ? "export { KubeConfig } from '@kubernetes/client-node/dist/config.js';\n"
          : "export { createConfiguration } from './gen/configuration.js';\n" +
            "export { ServerConfiguration } from './gen/servers.js';\n",
      resolveDir: a.pluginData as string,
      loader: 'js',
    }));
  },
};

const bundle = path.join(dist, 'lib', 'reconciler', 'run.js');
async function bundleReconciler(): Promise<void> {
  const r = await esbuild.build({
    entryPoints: [path.join(root, 'lib', 'reconciler', 'run.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    keepNames: true,
    metafile: true,
    logLevel: 'warning',
    plugins: [kubeConfigOnly],
  });
  const inputs = Object.keys(r.metafile.inputs);
  const generated = inputs.filter((f) =>
    /client-node[\\/]dist[\\/](gen[\\/](index\.js|models[\\/]|apis[\\/]|types[\\/])|types[\\/])/.test(f),
  );
  if (shimmed !== 1 || generated.length > 0)
    throw new Error(
      "the reconciler bundle must hold client-node's KubeConfig without its generated clients " +
        `(config.js's import of ./gen/index.js replaced ${shimmed} times; generated modules in it: ${generated.slice(0, 5).join(', ') || 'none'})`,
    );
  console.log(
    `dist/ built: node dist/lib/cli/main.js (dist/lib/reconciler/run.js: one bundle, ${inputs.length} modules, ${(fs.statSync(bundle).size / 1024).toFixed(0)} KiB)`,
  );
}

bundleReconciler().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
