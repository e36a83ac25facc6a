/**
 * `npm run build:js`: compiles lib/ and generated/ to JavaScript in dist/ (tsconfig.build.json), the
 * form the reconciler image runs (`node dist/lib/cli/main.js`, see the Dockerfile). tsc emits the
 * JSON that lib/ imports (package.json, generated/model.schema.json); this script copies beside the
 * output what lib/ reads at run time by path instead: generated/validators.js (required by
 * lib/validate.ts) and the vendored CRDs (read by lib/crds.ts), so every command works from dist/.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');

fs.rmSync(dist, { recursive: true, force: true });
execFileSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', path.join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
fs.copyFileSync(path.join(root, 'generated', 'validators.js'), path.join(dist, 'generated', 'validators.js'));
fs.cpSync(path.join(root, 'crds'), path.join(dist, 'crds'), { recursive: true });
for (const required of ['lib/cli/main.js', 'package.json', 'generated/model.schema.json']) {
  if (!fs.existsSync(path.join(dist, required))) throw new Error(`dist/${required} was not built`);
}
console.log(`dist/ built: node dist/lib/cli/main.js`);
