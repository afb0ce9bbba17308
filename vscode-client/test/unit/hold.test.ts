import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunControl } from '../../src/controller/run';
import type { Host } from '../../src/controller/host';
import type { Asks } from '../../src/controller/asks';
import { type Action, initialState, reduce } from '../../src/model/reducer';
import type { ServerInfo, ViewModel } from '../../src/model/types';
import type { PromptParams } from '../../src/protocol/generated';
import type { HostMessage } from '../../src/protocol/messages';
import { ServerFeatures } from '../../src/protocol/features';
import { withVscode } from './helpers';

// Prompts sent while the panel still says "Starting the pi server…" (src/controller/hold.ts).
const vscode = { workspace: { getConfiguration: () => ({ get: () => 'steer' }) } };
const loadRunControl = async (): Promise<typeof RunControl> =>
  (await withVscode(vscode, () => import('../../src/controller/run'))).RunControl;

/** A host over the real reducer whose server is starting: `rpc()` throws until it runs. */
function startingHost() {
  let vm: ViewModel = initialState(); // server: starting, no session yet
  const listeners: ((vm: ViewModel) => void)[] = [];
  const prompts: PromptParams[] = [];
  const posted: HostMessage[] = [];
  const host = {
    state: () => vm,
    dispatch: (...actions: Action[]) => {
      for (const a of actions) vm = reduce(vm, a).vm;
      for (const l of [...listeners]) l(vm);
    },
    onDidChange: (l: (vm: ViewModel) => void) => {
      listeners.push(l);
      return { dispose: () => listeners.splice(listeners.indexOf(l), 1) };
    },
    post: (m: HostMessage) => posted.push(m),
    features: () => new ServerFeatures({ protocolVersion: 3, features: { queue: 1 } }),
    rpc: () => {
      if (vm.server.status !== 'running') throw new Error('pi: the server is not running');
      return {
        prompt: async (p: PromptParams) => {
          prompts.push(p);
          return { sessionId: 'S', delivered: p.deliverAs ?? 'prompt' };
        },
      };
    },
    loadSession: async () => undefined,
  } as unknown as Host;
  const server = (s: ServerInfo) => host.dispatch({ type: 'server', server: s });
  return { host, state: () => vm, prompts, posted, server };
}

async function runControl(host: Host): Promise<RunControl> {
  const Run = await loadRunControl();
  const asks = { answerWaitingQuestion: () => false, denyWaiting: () => undefined } as unknown as Asks;
  let session: string | null = null;
  return new Run(host, asks, {
    attaching: () => null,
    newSession: async () => {
      session ??= 'S';
      host.dispatch({ type: 'loadSession', sessionId: session, messages: [] });
      return session;
    },
  });
}

test('a prompt sent while the server starts waits, shown as waiting, and goes once the server runs', async () => {
  const h = startingHost();
  const run = await runControl(h.host);
  const first = run.prompt('hello while starting');
  const second = run.prompt('and then this');
  await Promise.resolve();
  assert.deepEqual(h.state().waiting.map((w) => w.text), ['hello while starting', 'and then this']);
  assert.equal(h.prompts.length, 0);
  h.server({ status: 'running', command: 'pi-lsp' });
  assert.deepEqual(await first, { sessionId: 'S', delivered: 'prompt' });
  await second;
  // in the order typed; the second follows the first one's run (the enter action, steer here)
  assert.deepEqual(h.prompts.map((p) => [p.text, p.deliverAs]), [['hello while starting', undefined], ['and then this', 'steer']]);
  assert.deepEqual(h.state().waiting, []);
  assert.equal(h.posted.length, 0, 'nothing given back');
});

test('a prompt that waited for a server that failed to start comes back to the input box, with the reason', async () => {
  const h = startingHost();
  const run = await runControl(h.host);
  const sent = run.prompt('do not lose me');
  await Promise.resolve();
  assert.equal(h.state().waiting.length, 1);
  h.server({ status: 'error', message: 'pi: the server pi-lsp failed to start: boom' });
  await assert.rejects(sent, /failed to start: boom/);
  assert.deepEqual(h.state().waiting, []);
  assert.deepEqual(h.posted, [{ type: 'setInput', text: 'do not lose me', keepDraft: true }]);
  const notice = h.state().items.at(-1);
  assert.equal(notice?.kind, 'notice');
  assert.match(notice?.kind === 'notice' ? notice.text : '', /failed to start: boom.*back in the input box/);
  assert.equal(h.prompts.length, 0);
});

test('a prompt sent when no server was found is given back at once', async () => {
  const h = startingHost();
  h.server({ status: 'missing', message: 'The pi-lsp server was not found.' });
  const run = await runControl(h.host);
  await assert.rejects(run.prompt('typed anyway'), /not found/);
  assert.deepEqual(h.posted, [{ type: 'setInput', text: 'typed anyway', keepDraft: true }]);
  assert.deepEqual(h.state().waiting, []);
});

test('the waiting prompts survive the session the server opens on start', () => {
  let vm = reduce(initialState(), { type: 'waiting', waiting: [{ id: 'wait:1', text: 'hi' }] }).vm;
  vm = reduce(vm, { type: 'loadSession', sessionId: 'S', messages: [] }).vm;
  assert.deepEqual(vm.waiting, [{ id: 'wait:1', text: 'hi' }]);
});
