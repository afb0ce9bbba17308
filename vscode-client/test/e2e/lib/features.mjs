// Ask the real pi-lsp which v2 requests it implements (MethodNotFound = not built yet), so a
// UI check of a feature the server lacks is skipped with that reason instead of timing out.
import { spawn } from 'node:child_process';

const PROBES = {
  review: ['pi/review', { sessionId: 'probe' }],
  checkpoints: ['pi/checkpoints', { sessionId: 'probe' }],
  permissions: ['pi/permissions', { op: 'list' }],
  queue: ['pi/queue', { sessionId: 'probe', op: 'clear' }],
};

export async function serverFeatures(command, rootDir) {
  const proc = spawn(command, ['--stdio'], { stdio: ['pipe', 'pipe', 'ignore'] });
  let buf = Buffer.alloc(0);
  const waiting = new Map();
  proc.stdout.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      const head = buf.indexOf('\r\n\r\n');
      if (head < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(buf.slice(0, head).toString())[1]);
      if (buf.length < head + 4 + len) return;
      const msg = JSON.parse(buf.slice(head + 4, head + 4 + len).toString());
      buf = buf.slice(head + 4 + len);
      if (msg.id !== undefined && waiting.has(msg.id) && msg.method === undefined) {
        waiting.get(msg.id)(msg);
        waiting.delete(msg.id);
      } else if (msg.id !== undefined && msg.method) {
        send({ jsonrpc: '2.0', id: msg.id, result: null }); // answer server requests blandly
      }
    }
  });
  const send = (m) => {
    const body = Buffer.from(JSON.stringify(m));
    proc.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    proc.stdin.write(body);
  };
  let next = 1;
  const request = (method, params) => new Promise((resolve) => {
    const id = next++;
    waiting.set(id, resolve);
    send({ jsonrpc: '2.0', id, method, params });
  });
  const exited = new Promise((r) => proc.once('exit', r));
  try {
    await request('initialize', {
      processId: process.pid, rootUri: `file://${rootDir}`, capabilities: {},
      workspaceFolders: [{ uri: `file://${rootDir}`, name: 'probe' }],
      initializationOptions: { pi: { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', model: 'x' } },
    });
    send({ jsonrpc: '2.0', method: 'initialized', params: {} });
    const out = {};
    for (const [name, [method, params]] of Object.entries(PROBES)) {
      const res = await request(method, params);
      out[name] = !(res.error && res.error.code === -32601);
    }
    await request('shutdown', null);
    send({ jsonrpc: '2.0', method: 'exit' });
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    return out;
  } finally {
    if (proc.exitCode === null) proc.kill('SIGKILL');
  }
}
