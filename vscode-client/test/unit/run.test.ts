import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunControl } from '../../src/controller/run';
import type { Host } from '../../src/controller/host';
import type { Asks } from '../../src/controller/asks';
import { initialState } from '../../src/model/reducer';
import type { ViewModel } from '../../src/model/types';
import type { PromptParams } from '../../src/protocol/generated';
import { ServerFeatures } from '../../src/protocol/features';
import { withVscode } from './helpers';

// run.ts imports vscode (the enter-action setting): a shim whose setting says "followUp".
const vscode = { workspace: { getConfiguration: () => ({ get: () => 'followUp' }) } };
const loadRunControl = async (): Promise<typeof RunControl> =>
  (await withVscode(vscode, () => import('../../src/controller/run'))).RunControl;

/** What `prompt()` sends to the server, for a view model and the server's features. */
async function sent(vm: Partial<ViewModel>, deliverAs: 'steer' | 'followUp' | 'interrupt' | undefined, features: Record<string, number>): Promise<PromptParams> {
  const Run = await loadRunControl();
  const state = { ...initialState(), sessionId: 'S', ...vm } as ViewModel;
  const calls: PromptParams[] = [];
  const host = {
    state: () => state,
    features: () => new ServerFeatures({ protocolVersion: 3, features }),
    rpc: () => ({
      prompt: async (p: PromptParams) => {
        calls.push(p);
        return { sessionId: 'S', delivered: p.deliverAs ?? 'prompt' };
      },
    }),
    loadSession: async () => undefined,
  } as unknown as Host;
  const asks = { answerWaitingQuestion: () => false, denyWaiting: () => undefined } as unknown as Asks;
  const run = new Run(host, asks, { attaching: () => null, newSession: async () => 'S' });
  await run.prompt('Stop, do this instead.', deliverAs);
  assert.equal(calls.length, 1);
  return calls[0];
}

test('an interrupt goes to the server even when the panel has not yet seen the run start', async () => {
  // the server may have started the run before its first event reached the view model: the
  // server decides (an idle session takes the interrupt as a prompt), the client never
  // turns the gesture into something else
  const p = await sent({ isStreaming: false }, 'interrupt', { interrupt: 1 });
  assert.equal(p.deliverAs, 'interrupt');
});

test('an explicit follow-up goes as one whether or not the panel shows a run', async () => {
  assert.equal((await sent({ isStreaming: false }, 'followUp', { queue: 1 })).deliverAs, 'followUp');
  assert.equal((await sent({ isStreaming: true }, 'followUp', { queue: 1 })).deliverAs, 'followUp');
});

test('a server without deliverAs "interrupt" gets a steer', async () => {
  assert.equal((await sent({ isStreaming: true }, 'interrupt', { queue: 1 })).deliverAs, 'steer');
});

test('plain Enter: the enter-action setting while a run streams, a plain prompt when idle', async () => {
  assert.equal((await sent({ isStreaming: true }, undefined, { queue: 1 })).deliverAs, 'followUp');
  assert.equal((await sent({ isStreaming: false }, undefined, { queue: 1 })).deliverAs, undefined);
});
