// Tier 2 against a real model server (run.mjs with PI_E2E_REAL_BASE_URL; the Python suite
// starts llama.cpp for it: tests/real_server/test_vscode_real_model.py). A user chats with a
// real model in the panel: the answer streams into the view model and ends cleanly.
'use strict';
const assert = require('assert');
const { api, waitFor } = require('./lib/pi');
const vm = require('./lib/vm');

describe('pi agent panel with a real model (extension host)', function () {
  // the answer may take up to waitFor's 120 s below (1-thread llama.cpp on a busy 2-core
  // machine): mocha's 60 s default cut it short in a full run
  this.timeout(180_000);
  let a;

  before(async function () {
    a = await api();
    await vm.newSession(a);
  });

  it('a prompt to a real model streams an answer into the panel', async () => {
    await a.prompt('Say hello in one short sentence.');
    const text = await waitFor(a, (s) => {
      if (vm.isStreaming(s)) return null;
      const t = vm.lastAssistantText(s);
      return t && t.trim().length > 0 ? t : null;
    }, 'a finished answer from the real model', 120000);
    const items = vm.assistantItems(a.state());
    const last = items[items.length - 1];
    assert.ok(!last.errorMessage, `the run failed: ${last.errorMessage}`);
    assert.ok(['stop', 'length'].includes(vm.stopReason(last)), `stopReason ${vm.stopReason(last)}`);
    assert.deepStrictEqual(vm.userTexts(a.state()), ['Say hello in one short sentence.']);
    assert.ok(text.length > 0);
  });
});
