/**
 * The layer rules of `.dependency-cruiser.cjs` (what `npm run lint:layers` runs): lib/ as it is
 * breaks none of them, and each rule does catch what it is there for, in a small tree built to break
 * it (an upward import, a cycle of type-only imports, a file in no layer), with its rule's name in
 * the report.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = path.join(__dirname, '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require(path.join(root, '.dependency-cruiser.cjs')) as {
  forbidden: unknown[];
  options: object;
};

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

async function violations(dir: string): Promise<Violation[]> {
  const { cruise } = await import('dependency-cruiser');
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const result = await cruise(['lib'], {
      ...config.options,
      tsConfig: undefined,
      validate: true,
      ruleSet: { forbidden: config.forbidden },
    } as never);
    const output = result.output as { summary: { violations: Violation[] } };
    return output.summary.violations;
  } finally {
    process.chdir(cwd);
  }
}

test('lib/ keeps every layer rule', async () => {
  const found = await violations(root);
  assert.equal(
    found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`),
    [],
  );
});

test('each rule catches what it is there for, by name', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-'));
  try {
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    };
    write('lib/names.ts', "export const A = 'a';\n");
    write('lib/cli/main.ts', "export const B = 'b';\n");
    // render reaching up into the CLI
    write('lib/render/up.ts', "import { B } from '../cli/main';\nexport const C = B;\n");
    // a cycle of type-only imports inside one folder
    write('lib/render/one.ts', "import type { Two } from './two';\nexport type One = { two?: Two };\n");
    write('lib/render/two.ts', "import type { One } from './one';\nexport type Two = { one?: One };\n");
    // a file in no layer
    write('lib/elsewhere/stray.ts', "import { A } from '../names';\nexport const D = A;\n");
    // A cycle is reported once, from whichever of its files comes first.
    const found = (await violations(dir))
      .map((v) =>
        v.rule.name === 'no-cycle'
          ? `no-cycle: ${[v.from, v.to].sort().join(' ↔ ')}`
          : `${v.rule.name}: ${v.from} → ${v.to}`,
      )
      .sort();
    assert.equal(found, [
      'no-cycle: lib/render/one.ts ↔ lib/render/two.ts',
      'no-unlayered-module: lib/elsewhere/stray.ts → lib/names.ts',
      'render-imports-above: lib/render/up.ts → lib/cli/main.ts',
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
