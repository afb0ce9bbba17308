import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newMemory, nudgesFor, processRow, shortTokens, waitingCount } from '../../src/nudgeRules';
import { parseWebviewMessage } from '../../src/protocol/messages';
import { Driver } from './helpers';

const PERMISSION = {
  sessionId: 'S',
  toolCallId: 'c1',
  tool: 'bash',
  title: 'Run: npm run dev',
  detail: '',
  options: [
    { id: 'once', label: 'Allow once', kind: 'allowOnce' },
    { id: 'no', label: 'Deny', kind: 'deny' },
  ],
};

describe('nudges (issue 42)', () => {
  test('a waiting permission nudges once, with Allow, only while the user is away', () => {
    const d = new Driver();
    const mem = newMemory();
    assert.deepEqual(nudgesFor(d.vm, mem, true), []);
    d.act({ type: 'permissionAsk', requestKey: 'r1', params: PERMISSION });
    const first = nudgesFor(d.vm, mem, true);
    assert.deepEqual(first, [
      { kind: 'permission', requestKey: 'r1', text: 'pi needs your permission: Run: npm run dev', allowOptionId: 'once' },
    ]);
    assert.deepEqual(nudgesFor(d.vm, mem, true), []); // not twice
    d.act({ type: 'permissionAsk', requestKey: 'r2', params: PERMISSION });
    assert.deepEqual(nudgesFor(d.vm, mem, false), []); // focused, panel visible: the card is enough
    assert.equal(waitingCount(d.vm), 2);
    // the user leaves while it still waits: now it nudges (once)
    assert.deepEqual(nudgesFor(d.vm, mem, true).map((n) => n.kind === 'permission' && n.requestKey), ['r2']);
    assert.deepEqual(nudgesFor(d.vm, mem, true), []);
    const off = newMemory();
    assert.deepEqual(nudgesFor(d.vm, off, true, { permission: false, question: true, runEnd: true, contextWarning: 0.8 }), []);
  });

  test('a question and the end of a run nudge; the badge counts questions too', () => {
    const d = new Driver();
    const mem = newMemory();
    d.ev({ type: 'agent_start' });
    nudgesFor(d.vm, mem, true);
    d.act({ type: 'questionAsk', requestKey: 'q1', params: { sessionId: 'S', toolCallId: 'c2', question: 'Which port?\nmore', options: [] } });
    assert.deepEqual(nudgesFor(d.vm, mem, true), [{ kind: 'question', requestKey: 'q1', text: 'pi asks: Which port?' }]);
    assert.equal(waitingCount(d.vm), 1);
    d.ev({ type: 'agent_end', messages: [] });
    assert.deepEqual(nudgesFor(d.vm, mem, true), [{ kind: 'runEnd', text: 'pi: the run is done' }]);
  });

  test('the context warning comes once past 80 %, again after it dropped below', () => {
    const d = new Driver();
    const mem = newMemory();
    const at = (tokens: number) => {
      d.vm = { ...d.vm, contextTokens: tokens, contextWindow: 128_000 };
      return nudgesFor(d.vm, mem, false);
    };
    assert.deepEqual(at(50_000), []);
    const warned = at(104_000);
    assert.equal(warned.length, 1);
    assert.equal(warned[0]?.kind, 'context');
    assert.match(warned[0]?.text ?? '', /81% full \(104k\/128k\): compaction is near\. \/compact summarises/);
    assert.deepEqual(at(110_000), []);
    assert.deepEqual(at(20_000), []);
    assert.equal(at(120_000).length, 1);
  });

  test('process rows and token figures', () => {
    assert.equal(shortTokens(1234), '1.2k');
    assert.equal(shortTokens(128_000), '128k');
    assert.equal(shortTokens(950), '950');
    const row = processRow({ id: 'bg1', command: 'npm run dev', running: true, uptime: 65, lastLines: ['ready on :5173'] });
    assert.deepEqual(row, {
      label: 'npm run dev',
      description: 'bg1 · running 1m05s · ready on :5173',
      tooltip: 'bg1: npm run dev\nrunning 1m05s\nready on :5173',
    });
    assert.equal(processRow({ id: 'bg2', command: 'x', running: false, exitCode: -9, uptime: 3 }).description, 'bg2 · ended (-9)');
  });

  test('/export is a valid panel message', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'export' }), { type: 'export' });
  });
});
