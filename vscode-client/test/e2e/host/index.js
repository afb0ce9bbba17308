// Entry point that VS Code's extension host loads as `extensionTestsPath`: runs mocha over
// the spec files named by PI_E2E_SPECS (comma-separated, relative to this folder) and posts
// every result, then a summary, to the runner at PI_E2E_REPORT_URL (a 127.0.0.1 HTTP port
// the runner listens on). The runner prints them; nothing here decides pass/fail alone.
'use strict';
const path = require('path');
const http = require('http');

const Mocha = require(path.join(__dirname, '..', 'node_modules', 'mocha'));

function post(kind, body) {
  const url = process.env.PI_E2E_REPORT_URL;
  if (!url) return Promise.resolve();
  const data = Buffer.from(JSON.stringify({ kind, ...body }));
  return new Promise((resolve) => {
    const req = http.request(url, {
      method: 'POST', headers: { 'content-type': 'application/json', 'content-length': data.length },
    }, (res) => { res.resume(); res.on('end', resolve); });
    req.on('error', resolve);
    req.end(data);
  });
}

function reporterFactory(done) {
  return function Reporter(runner) {
    const stats = { passed: 0, failed: 0, skipped: 0 };
    const pending = [];
    const title = (t) => t.fullTitle();
    runner.on('pass', (t) => {
      stats.passed++;
      pending.push(post('test', { state: 'passed', title: title(t), ms: t.duration }));
    });
    runner.on('fail', (t, err) => {
      stats.failed++;
      pending.push(post('test', {
        state: 'failed', title: title(t),
        error: String((err && (err.stack || err.message)) || err),
      }));
    });
    runner.on('pending', (t) => {
      stats.skipped++;
      pending.push(post('test', { state: 'skipped', title: title(t), reason: t.skipReason || '' }));
    });
    runner.on('end', () => { done(stats, pending); });
  };
}

async function run() {
  const specs = (process.env.PI_E2E_SPECS || '').split(',').filter(Boolean);
  await post('start', { specs });
  const finished = new Promise((resolve) => {
    const mocha = new Mocha({
      ui: 'bdd', timeout: Number(process.env.PI_E2E_TIMEOUT_MS || 60000), color: false,
      reporter: reporterFactory((stats, pending) => resolve({ stats, pending })),
    });
    for (const s of specs) mocha.addFile(path.resolve(__dirname, s));
    try {
      mocha.run();
    } catch (err) {
      resolve({ stats: { passed: 0, failed: 1, skipped: 0 }, pending: [post('test', {
        state: 'failed', title: 'loading the specs', error: String(err && err.stack || err),
      })] });
    }
  });
  const { stats, pending } = await finished;
  await Promise.all(pending);
  await post('end', stats);
  if (stats.failed > 0) throw new Error(`${stats.failed} extension-host test(s) failed`);
}

module.exports = { run };
