import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunControl } from '../../src/controller/run';
import type { Host } from '../../src/controller/host';
import type { Asks } from '../../src/controller/asks';
import { initialState, reduce } from '../../src/model/reducer';
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
  const state = { ...initialState(), sessionId: 'S', server: { status: 'running' }, ...vm } as ViewModel;
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

/** A RunControl over the real Asks and reducer: steering while a permission question waits. */
async function withWaitingPermission(deliverAs: 'steer' | 'followUp' | 'interrupt') {
  const Run = await loadRunControl();
  const { Asks: RealAsks } = await withVscode(vscode, () => import('../../src/controller/asks'));
  let state = { ...initialState(), sessionId: 'S', server: { status: 'running' }, isStreaming: true } as ViewModel;
  const host = {
    state: () => state,
    dispatch: (a: Parameters<typeof reduce>[1]) => {
      state = reduce(state, a).vm;
    },
    features: () => new ServerFeatures({ protocolVersion: 3, features: { queue: 1, interrupt: 1 } }),
    rpc: () => ({ prompt: async (p: PromptParams) => ({ sessionId: 'S', delivered: p.deliverAs ?? 'prompt' }) }),
    loadSession: async () => undefined,
  } as unknown as Host;
  const asks = new RealAsks(host);
  const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose: () => undefined }) };
  const answer = asks.askPermission(
    {
      sessionId: 'S',
      toolCallId: 't1',
      tool: 'bash',
      title: 'Run rm -rf build?',
      options: [
        { id: 'once', label: 'Allow once', kind: 'allowOnce' },
        { id: 'no', label: 'Deny', kind: 'deny' },
      ],
    } as unknown as Parameters<typeof asks.askPermission>[0],
    token as unknown as Parameters<typeof asks.askPermission>[1],
  );
  assert.equal(state.permissions.length, 1);
  const run = new Run(host, asks, { attaching: () => null, newSession: async () => 'S' });
  await run.prompt('keep the build dir', deliverAs);
  return { answer, state: () => state };
}

test('steering or an interrupt while a permission question waits denies it, with the new instruction as the reason', async () => {
  for (const how of ['steer', 'interrupt'] as const) {
    const { answer, state } = await withWaitingPermission(how);
    assert.deepEqual(await answer, {
      optionId: 'no',
      reason: 'The user sent a new instruction instead: keep the build dir',
    });
    assert.equal(state().permissions.length, 0, how);
  }
});

test('a follow-up leaves the waiting permission question to the user', async () => {
  const { answer, state } = await withWaitingPermission('followUp');
  const settled = await Promise.race([answer.then(() => 'answered'), Promise.resolve('waiting')]);
  assert.equal(settled, 'waiting');
  assert.equal(state().permissions.length, 1);
});
