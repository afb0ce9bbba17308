// A 127.0.0.1 HTTP endpoint the extension-host tests post their results to, and the
// `N passed, N failed` bookkeeping every tier prints.
import { createServer } from 'node:http';

export class Tally {
  constructor(tier) {
    this.tier = tier;
    this.passed = 0;
    this.failed = 0;
    this.skipped = 0;
    this.measured = 0;
    this.failures = [];
  }

  record({ state, title, error, reason, ms }) {
    if (state === 'passed') {
      this.passed++;
      console.log(`  ok    ${title}${ms !== undefined ? ` (${ms} ms)` : ''}`);
    } else if (state === 'measured') {
      // a figure for docs/performance.md: never a pass (nothing was compared), never counted as one
      this.measured++;
      console.log(`  measure  ${title}: ${reason || ''}`);
    } else if (state === 'skipped') {
      this.skipped++;
      console.log(`  skip  ${title}${reason ? ` — ${reason}` : ''}`);
    } else {
      this.failed++;
      this.failures.push({ title, error });
      console.log(`  FAIL  ${title}\n${indent(String(error || ''))}`);
    }
  }

  /** A failure that is not one test's (the tier could not run at all). */
  broken(what, err) {
    this.record({ state: 'failed', title: what, error: err && err.stack ? err.stack : String(err) });
  }

  line() {
    const measured = this.measured ? `, ${this.measured} measured` : '';
    return `${this.tier}: ${this.passed} passed, ${this.failed} failed, ${this.skipped} skipped${measured}`;
  }
}

function indent(s) {
  return s.split('\n').slice(0, 30).map((l) => `        ${l}`).join('\n');
}

/** Listen for {kind: start|test|end} posts; resolves `ended` with the final stats. */
export async function startReportServer(tally) {
  let resolveEnd;
  const ended = new Promise((r) => { resolveEnd = r; });
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      res.end('ok');
      let msg;
      try { msg = JSON.parse(body); } catch { return; }
      if (msg.kind === 'test') tally.record(msg);
      else if (msg.kind === 'end') resolveEnd(msg);
      else if (msg.kind === 'log') console.log(`  .     ${msg.text}`);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/report`;
  return { url, ended, close: () => new Promise((r) => server.close(r)) };
}
