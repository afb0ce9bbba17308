// A scripted OpenAI Chat Completions server on 127.0.0.1 (runs inside the extension host,
// beside the tests): the real `pi-lsp` talks to it with `provider: "openai-compatible"`.
// Each request takes the next queued reply; a reply can stop at a gate until the test opens
// it, so a test acts at a known point of the stream (no sleeps).
'use strict';
const http = require('http');

function chunk(delta, finish = null) {
  return {
    id: 'chatcmpl-e2e', object: 'chat.completion.chunk', model: 'test-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

/** SSE events of a text answer cut into `pieces`. */
function textEvents(text, pieces = 4) {
  const size = Math.max(1, Math.ceil(text.length / pieces));
  const out = [chunk({ role: 'assistant', content: '' })];
  for (let i = 0; i < text.length; i += size) out.push(chunk({ content: text.slice(i, i + size) }));
  out.push(chunk({}, 'stop'));
  return out;
}

/** SSE events of tool calls `[[name, args], ...]`, optionally after some text (in `pieces`). */
function toolEvents(calls, text = '', pieces = 1) {
  const out = text ? textEvents(text, pieces).slice(0, -1) : [chunk({ role: 'assistant', content: '' })];
  calls.forEach(([name, args], index) => {
    const raw = JSON.stringify(args);
    out.push(chunk({ tool_calls: [{ index, id: `call_${index}_${name}_${Math.random().toString(36).slice(2, 8)}`,
      type: 'function', function: { name, arguments: '' } }] }));
    for (let i = 0; i < raw.length; i += 9) {
      out.push(chunk({ tool_calls: [{ index, function: { arguments: raw.slice(i, i + 9) } }] }));
    }
  });
  out.push(chunk({}, 'tool_calls'));
  return out;
}

/** A gate a reply waits at: `await`-able by the server, opened by the test. */
function gate() {
  let open;
  const opened = new Promise((r) => { open = r; });
  let reachedResolve;
  const reached = new Promise((r) => { reachedResolve = r; });
  return { opened, open, reached, _reached: reachedResolve };
}

class ScriptedOpenAI {
  constructor() {
    this.queue = [];
    this.requests = [];
    this.waiters = [];
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  async start(port = 0) {
    await new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', resolve);
    });
    this.url = `http://127.0.0.1:${this.server.address().port}/v1`;
    return this;
  }

  close() {
    this.server.closeAllConnections?.();
    return new Promise((r) => this.server.close(() => r()));
  }

  /** Forget queued replies and recorded requests (between tests). */
  reset() { this.queue = []; this.requests = []; this.waiters = []; }

  /** Queue a reply: {events, gate?, gateAfter?, gates?, delayMs?} or {status, body}. */
  enqueue(reply) { this.queue.push(reply); return this; }
  text(text, opts = {}) { return this.enqueue({ events: textEvents(text, opts.pieces), ...opts }); }
  tools(calls, opts = {}) { return this.enqueue({ events: toolEvents(calls, opts.text, opts.pieces), ...opts }); }

  /** Resolves once `n` requests have arrived. */
  waitRequests(n) {
    if (this.requests.length >= n) return Promise.resolve(this.requests);
    return new Promise((r) => this.waiters.push({ n, r }));
  }

  /** The messages of request `i` (0-based). */
  messages(i) { return this.requests[i].body.messages; }

  async handle(req, res) {
    let raw = '';
    for await (const c of req) raw += c;
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [{ id: 'test-model', object: 'model' }] }));
      return;
    }
    let body;
    try { body = JSON.parse(raw); } catch { body = raw; }
    this.requests.push({ path: req.url, body });
    for (const w of this.waiters.filter((x) => this.requests.length >= x.n)) w.r(this.requests);
    this.waiters = this.waiters.filter((x) => this.requests.length < x.n);
    const reply = this.queue.shift();
    if (!reply) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'scripted server: no reply queued' } }));
      return;
    }
    if (reply.status) {
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.body || {}));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let closed = false;
    res.on('close', () => { closed = true; });
    // `gate` + `gateAfter`, or several: `gates: [{gate, after}]` (each stops before event `after`)
    const gates = reply.gates ?? (reply.gate ? [{ gate: reply.gate, after: reply.gateAfter ?? 2 }] : []);
    for (let i = 0; i < reply.events.length; i++) {
      if (closed) return;
      for (const g of gates.filter((x) => x.after === i)) {
        g.gate._reached();
        await Promise.race([g.gate.opened, new Promise((r) => res.once('close', r))]);
        if (closed) return;
      }
      res.write(`data: ${JSON.stringify(reply.events[i])}\n\n`);
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    }
    if (!closed) res.end('data: [DONE]\n\n');
  }
}

async function startScripted(port = 0) {
  return new ScriptedOpenAI().start(port);
}

module.exports = { startScripted, textEvents, toolEvents, gate, chunk };
