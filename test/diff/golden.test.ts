/**
 * Golden diffs of typical edits (test/diff/edits.ts): for each, the text, markdown and JSON output
 * of `clusterset diff` equal `test/diff/expected/<edit>/` (`UPDATE_GOLDEN=1` rewrites them; review
 * the diff like code), and the summary names exactly the clusters the edit touches.
 */
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { formatDiagnostic } from '../../lib/diagnostics';
import { diffTrees, formatJson, formatMarkdown, formatText, impact } from '../../lib/diff';
import { matchGolden } from '../helpers/golden';
import { EDITS, beforeAfter } from './edits';

const EXPECTED = path.join(__dirname, 'expected');
const LABELS = { before: 'out/', after: 'clusterset.ts' };

function files(model: unknown): ReadonlyMap<string, string> {
  const r = compile(model);
  assert.equal(r.diagnostics.map(formatDiagnostic), [], 'the model compiles');
  return r.files;
}

for (const e of EDITS) {
  test(`GIVEN edit ${e.name} WHEN diffed THEN text, markdown and json equal test/diff/expected/${e.name}/`, () => {
    const { before, after } = beforeAfter(e);
    const b = files(before);
    const a = files(after);
    const d = diffTrees(b, a);
    const i = impact(b, a, d);
    const problems = matchGolden(
      new Map([
        ['diff.txt', formatText(d, i, LABELS)],
        ['diff.md', formatMarkdown(d, i, LABELS)],
        ['diff.json', formatJson(d, i, LABELS)],
      ]),
      path.join(EXPECTED, e.name),
    );
    assert.ok(
      problems.length === 0,
      `golden differences (UPDATE_GOLDEN=1 rewrites):\n${problems.join('\n')}`,
    );
    assert.equal(i.touched, e.touched, 'the summary names exactly the touched clusters');
    const md = formatMarkdown(d, i, LABELS);
    assert.match(md, new RegExp(`^### clusterset diff: ${e.touched.length} of \\d+ clusters touched`));
    for (const c of e.touched) assert.match(md, `\`clusters/${c}`);
  });
}

test.run();
