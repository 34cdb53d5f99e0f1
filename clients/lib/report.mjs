// report.mjs runs named scenarios with a time limit and records PASS / FAIL per client.

// Report collects the results of every client's scenarios.
export class Report {
  constructor() {
    this.results = []; // {client, scenario, ok, ms, error}
  }

  // run runs fn as scenario `scenario` of `client`, at most limitMs, prints one line and records
  // the result. It never throws.
  async run(client, scenario, fn, limitMs = 60_000) {
    const t0 = Date.now();
    let timer;
    try {
      await Promise.race([
        fn(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${limitMs} ms`)), limitMs);
        }),
      ]);
      this.add(client, scenario, true, Date.now() - t0);
    } catch (err) {
      this.add(client, scenario, false, Date.now() - t0, err);
    } finally {
      clearTimeout(timer);
    }
  }

  // add records one result and prints it.
  add(client, scenario, ok, ms, error) {
    this.results.push({ client, scenario, ok, ms, error });
    const line = `${ok ? 'PASS' : 'FAIL'}  ${client.padEnd(9)} ${scenario.padEnd(22)} (${ms} ms)`;
    console.log(line);
    if (!ok) {
      const text = String(error?.stack ?? error).split('\n').slice(0, 12).join('\n');
      console.log(text.replace(/^/gm, '        '));
    }
  }

  // summary prints one line per client and the overall line; it returns the failure count.
  // A scenario of scenarioNames, or of the client's own list in perClient, that a client did
  // not report counts as failed.
  summary(clients, ms, scenarioNames = [], perClient = {}) {
    for (const client of clients) {
      for (const name of [...scenarioNames, ...(perClient[client] ?? [])]) {
        if (!this.results.some((r) => r.client === client && r.scenario === name)) {
          this.add(client, name, false, 0, new Error('not run'));
        }
      }
    }
    console.log(`\nclient suite summary (${(ms / 1000).toFixed(1)} s; each scenario against both endpoints)`);
    let passed = 0;
    let failed = 0;
    for (const client of clients) {
      const rs = this.results.filter((r) => r.client === client);
      const p = rs.filter((r) => r.ok).length;
      const f = rs.length - p;
      passed += p;
      failed += f;
      const failedNames = rs.filter((r) => !r.ok).map((r) => r.scenario);
      const status = f === 0 ? 'all pass' : 'FAILED: ' + failedNames.join(', ');
      console.log(`  ${client.padEnd(9)} ${String(p).padStart(2)} passed, ${f} failed  ${status}`);
    }
    console.log(`clients: ${passed} passed, ${failed} failed`);
    return failed;
  }
}

// assert throws when cond is false.
export function assert(cond, message) {
  if (!cond) throw new Error('assertion failed: ' + message);
}

// eq throws unless got === want (compared as strings for bigints and numbers).
export function eq(got, want, what) {
  if (String(got) !== String(want)) throw new Error(`${what}: got ${got}, want ${want}`);
}

// eqi compares hex strings case-insensitively.
export function eqi(got, want, what) {
  if (String(got).toLowerCase() !== String(want).toLowerCase()) throw new Error(`${what}: got ${got}, want ${want}`);
}

// rejects runs fn and returns the error it throws; it fails when fn succeeds.
export async function rejects(fn, what) {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error(`${what}: succeeded, want an error`);
}

// eventually polls fn until it returns a truthy value (at most limitMs) and returns it.
export async function eventually(fn, what, limitMs = 10_000, everyMs = 25) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
