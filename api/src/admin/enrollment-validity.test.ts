import { test } from 'vitest';
import assert from 'node:assert/strict';
// Beside the admin modules, not the command: every file under commands/ is a command to oclif.
import { parseValidity } from '../commands/admin/nodes/enroll.ts';

test('--valid-for takes minutes, hours or days up to a year, and nothing else', () => {
  assert.equal(parseValidity('90m'), 90 * 60);
  assert.equal(parseValidity('1h'), 3600);
  assert.equal(parseValidity('30d'), 30 * 24 * 3600);
  assert.equal(parseValidity('366d'), 366 * 24 * 3600);
  for (const refused of ['367d', '0h', '1', 'h', '1w', '1.5h', '-1h', ' 1h', '1h ', '9000h'])
    assert.equal(parseValidity(refused), undefined, refused);
});
