/**
 * Load: a model file → the model value. `.ts`/`.js` modules export it as `default` or `clusterSet`
 * (a value, or a function returning one); `.json`, `.yaml` and `.yml` files hold it as data.
 * TypeScript models load because the CLI runs under tsx.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadYaml } from './yaml';

export function loadModel(file: string): unknown {
  const abs = path.resolve(file);
  if (!fs.existsSync(abs)) throw new Error(`model file ${file} does not exist`);
  const ext = path.extname(abs);
  if (ext === '.json') return JSON.parse(fs.readFileSync(abs, 'utf8'));
  if (ext === '.yaml' || ext === '.yml') return loadYaml(fs.readFileSync(abs, 'utf8'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(abs) as Record<string, unknown>;
  const value = mod.default ?? mod.clusterSet;
  if (value === undefined) {
    throw new Error(
      `${file} exports neither \`default\` nor \`clusterSet\`; export the ClusterSetProps value as one of them`,
    );
  }
  return typeof value === 'function' ? (value as () => unknown)() : value;
}
