/**
 * Golden diffs of typical edits (test/diff/edits.ts): for each, the text, markdown and JSON output
 * of `clusterset diff` equal `test/diff/expected/<edit>/` (`UPDATE_GOLDEN=1` rewrites them; review
 * the diff like code), the summary names exactly the clusters the edit touches, and the comment
 * says what the edit's `mustSay` lists (the steps and breaking changes a reviewer must see).
 */
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile, type CompileResult } from '../../lib/compile';
import { formatDiagnostic } from '../../lib/diagnostics';
import { diffTrees, formatJson, formatMarkdown, formatText, impact } from '../../lib/diff';
import { matchGolden } from '../helpers/golden';
import { EDITS, beforeAfter } from './edits';

const EXPECTED = path.join(__dirname, 'expected');
const LABELS = { before: 'out/', after: 'clusterset.ts' };

function compiled(model: unknown): CompileResult {
  const r = compile(model);
  assert.equal(r.diagnostics.map(formatDiagnostic), [], 'the model compiles');
  return r;
}

for (const e of EDITS) {
  test(`GIVEN edit ${e.name} WHEN diffed THEN text, markdown and json equal test/diff/expected/${e.name}/`, () => {
    const { before, after } = beforeAfter(e);
    const b = compiled(before).files;
    const { files: a, plan } = compiled(after);
    const d = diffTrees(b, a);
    const i = impact(b, a, d, plan);
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
    for (const r of e.mustSay ?? []) assert.match(md, r);
  });
}

test.run();
