import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Connection, handleServerMessages, PiClient, REQUESTS } from '../../src/protocol/client';
import { readDeclaration, ServerFeatures } from '../../src/protocol/features';

function recorder() {
  const sent: [string, unknown][] = [];
  const handlers = new Map<string, (p: unknown, token?: unknown) => unknown>();
  const conn: Connection = {
    sendRequest: <R>(method: string, params: unknown) => {
      sent.push([method, params]);
      return Promise.resolve({ sessionId: 'S', delivered: 'prompt' } as R);
    },
    sendNotification: (method, params) => {
      sent.push([method, params]);
      return Promise.resolve();
    },
    onNotification: (method, h) => {
      handlers.set(method, h);
      return { dispose() {} };
    },
    onRequest: (method, h) => {
      handlers.set(method, h);
      return { dispose() {} };
    },
    isRunning: () => true,
  };
  return { conn, sent, handlers };
}

describe('the typed pi/* client', () => {
  test('one function per request method, each sending its own method name', async () => {
    const { conn, sent } = recorder();
    const rpc = new PiClient(conn);
    const r = await rpc.prompt({ text: 'hi', sessionId: 'S' });
    assert.equal(r.delivered, 'prompt');
    await rpc.restore({ sessionId: 'S', entryId: 'e', mode: 'code' });
    assert.deepEqual(sent.map(([m]) => m), [REQUESTS.prompt, REQUESTS.restore]);
    for (const name of Object.keys(REQUESTS)) assert.equal(typeof (rpc as unknown as Record<string, unknown>)[name], 'function', name);
  });

  test('server messages are routed to their handlers', async () => {
    const { conn, handlers } = recorder();
    const seen: string[] = [];
    handleServerMessages(conn, {
      event: (p) => seen.push(`event ${p.seq}`),
      saveDocuments: (p) => ({ saved: p.uris }),
      requestPermission: () => ({ optionId: 'deny' }),
      ask: () => ({ cancelled: true }),
      lspQuery: (p) => ({ result: p.method }),
    });
    assert.equal(handlers.size, 5);
    handlers.get('pi/event')?.({ sessionId: 'S', seq: 3, event: { type: 'agent_end' } });
    assert.deepEqual(seen, ['event 3']);
    assert.deepEqual(await handlers.get('pi/saveDocuments')?.({ uris: ['file:///a'] }), { saved: ['file:///a'] });
    assert.deepEqual(await handlers.get('pi/lspQuery')?.({ method: 'workspace/symbol', params: {} }), { result: 'workspace/symbol' });
  });
});

describe('feature detection from initialize', () => {
  test('the declared features and versions are read; nothing else is assumed', () => {
    const f = new ServerFeatures(readDeclaration({ pi: { protocolVersion: 3, features: { queue: 1, review: 2, bogus: 'x' } } }));
    assert.equal(f.has('queue'), true);
    assert.equal(f.has('review', 2), true);
    assert.equal(f.has('review', 3), false);
    assert.equal(f.has('checkpoints'), false);
    assert.deepEqual(f.declaration?.features, { queue: 1, review: 2 });
  });

  test('a server without the declaration (or a malformed one) has v1 features only', () => {
    for (const experimental of [undefined, null, {}, { pi: 1 }, { pi: { features: {} } }, { other: {} }]) {
      const f = new ServerFeatures(readDeclaration(experimental));
      assert.equal(f.declaration, null);
      assert.equal(f.has('queue'), false);
      assert.match(f.describe(), /v1 controls only/);
    }
  });
});
