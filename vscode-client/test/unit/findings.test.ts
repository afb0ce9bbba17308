import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type DiagnosticLike, FINDING_SOURCE, groupFindings, relativePath, summary } from '../../src/model/findings';

const at = (line: number, message: string, severity: number, source = FINDING_SOURCE): DiagnosticLike => ({
  message,
  severity,
  source,
  range: { start: { line, character: 4 } },
});
const ROOT = 'file:///ws';

describe('the Review section', () => {
  test('findings grouped by file, in path and line order; other diagnostics left out', () => {
    const groups = groupFindings(
      [
        [`${ROOT}/util.py`, [at(4, 'eval of input', 2)]],
        [`${ROOT}/calc.py`, [at(8, 'File never closed', 1), at(4, 'Division by zero', 0), at(1, 'unused import', 1, 'Pylance')]],
        [`${ROOT}/other.py`, [at(0, 'lint only', 0, 'ruff')]],
      ],
      [ROOT],
    );
    assert.deepEqual(
      groups.map((g) => [g.path, g.findings.map((f) => [f.label, f.severity])]),
      [
        ['calc.py', [['5: Division by zero', 'error'], ['9: File never closed', 'warning']]],
        ['util.py', [['5: eval of input', 'info']]],
      ],
    );
    assert.equal(summary(groups), '3 findings (1 error, 1 warning, 1 info)');
    assert.equal(summary([]), 'No findings');
  });

  test('paths relative to the workspace root', () => {
    assert.equal(relativePath('file:///ws/src/a%20b.py', ['file:///ws']), 'src/a b.py');
    assert.equal(relativePath('file:///elsewhere/x/y.py', ['file:///ws']), 'x/y.py');
  });
});
