// Browser check of flashrpc's live view, driven line by line by TestLiveViewBrowser
// (cmd/flashrpc/liveview_browser_test.go), which runs the node and sends the transactions.
//
// It opens the page of both endpoints in headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core) and answers the test's commands on stdin:
//
//   expect HASH   wait until HASH appears on both pages (pre-confirmed first, then sealed
//                 on the standard one) with a success status; print
//                 "seen pre|std HASH BLOCK MS" (MS: since the command arrived)
//   down          wait until both pages say they are disconnected; print "down"
//   live          wait until both pages are live again; print "live"
//   shot NAME     screenshot both pages into $FLASHRPC_SHOT_DIR/NAME-{pre-confirmed,standard}.png;
//                 print "shot"
//   done          close the browser and print the summary line
//
// It prints "ready" once both pages are live, and ends with "liveview: N passed, M failed".
import { chromium } from 'playwright-core';
import { createInterface } from 'node:readline';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const preURL = process.env.FLASHRPC_PRE_URL;
const stdURL = process.env.FLASHRPC_STD_URL;
const shotDir = process.env.FLASHRPC_SHOT_DIR || '.';
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const WAIT = 15000; // a bound for a failure, not a speed requirement: the times are printed

let passed = 0, failed = 0;
const ok = (what) => { passed++; console.log('PASS ' + what); };
const bad = (what, err) => { failed++; console.log('FAIL ' + what + ': ' + (err && err.message ? err.message.split('\n')[0] : err)); };

const profile = mkdtempSync(join(tmpdir(), 'flashrpc-chromium-'));
// A persistent context is Chromium with a fresh --user-data-dir of our own.
const context = await chromium.launchPersistentContext(profile, {
  executablePath,
  viewport: { width: 1360, height: 860 },
  deviceScaleFactor: 1,
  // Without the background-networking flags Chromium dials out, which this machine's closed
  // network refuses.
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const pages = {};
const errors = [];
for (const [name, url] of [['pre', preURL], ['std', stdURL]]) {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(name + ': ' + e.message));
  const resp = await page.goto(url);
  const type = resp.headers()['content-type'] || '';
  if (resp.status() === 200 && type.startsWith('text/html')) ok(name + ': GET / is the live view (' + type + ')');
  else bad(name + ': GET /', resp.status() + ' ' + type);
  pages[name] = page;
}
await waitLive('ready');
console.log('ready');

async function waitLive(what) {
  for (const [name, page] of Object.entries(pages)) {
    try {
      await page.waitForFunction(() => document.getElementById('conn').textContent === 'live', null, { timeout: WAIT });
      ok(name + ': live (' + what + ')');
    } catch (e) { bad(name + ': live (' + what + ')', e); }
  }
}

async function expectTx(hash) {
  const t0 = Date.now();
  for (const name of ['pre', 'std']) {
    const page = pages[name];
    const sel = 'tr[data-hash="' + hash + '"]';
    try {
      await page.waitForSelector(sel, { timeout: WAIT });
      const ms = Date.now() - t0;
      const block = await page.getAttribute(sel, 'data-block');
      console.log('seen ' + name + ' ' + hash + ' ' + block + ' ' + ms);
      ok(name + ': transaction ' + hash.slice(0, 10) + '… shown in block ' + block + ' after ' + ms + ' ms');
      await page.waitForFunction((s) => { const r = document.querySelector(s); return r && r.textContent.includes('success'); }, sel, { timeout: WAIT });
      ok(name + ': its status shows success');
    } catch (e) { bad(name + ': transaction ' + hash, e); }
  }
}

async function waitDown() {
  for (const [name, page] of Object.entries(pages)) {
    try {
      await page.waitForFunction(() => document.getElementById('conn').textContent.startsWith('disconnected'), null, { timeout: WAIT });
      ok(name + ': shows the node is gone');
    } catch (e) { bad(name + ': disconnected', e); }
  }
}

async function shot(name) {
  mkdirSync(shotDir, { recursive: true });
  for (const [key, page] of Object.entries(pages)) {
    const file = join(shotDir, name + '-' + (key === 'pre' ? 'pre-confirmed' : 'standard') + '.png');
    await page.bringToFront();
    await page.waitForTimeout(400); // let the front tab draw a few frames
    await page.screenshot({ path: file, fullPage: false });
    console.log('screenshot ' + file);
  }
}

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  const [cmd, arg] = line.trim().split(/\s+/);
  if (cmd === 'expect') await expectTx(arg);
  else if (cmd === 'down') { await waitDown(); console.log('down'); }
  else if (cmd === 'live') { await waitLive('after the restart'); console.log('live'); }
  else if (cmd === 'shot') { await shot(arg); console.log('shot'); }
  else if (cmd === 'done') break;
}
if (errors.length) bad('page errors', errors.join('; ')); else ok('no script errors on either page');
await context.close();
rmSync(profile, { recursive: true, force: true });
console.log('liveview: ' + passed + ' passed, ' + failed + ' failed');
process.exit(failed ? 1 : 0);
