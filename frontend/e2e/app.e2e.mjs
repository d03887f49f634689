// Browser end-to-end check of the Footnote UI against a running app (the Go
// dev server serves the UI and the bindings). Plain node + playwright-core
// driving the system Chromium; no browser download.
//
// Environment:
//   FOOTNOTE_URL      app URL (default http://127.0.0.1:34115)
//   FOOTNOTE_LIBRARY  folder to index (required); may hold files that fail to index
//   FOOTNOTE_BROKEN   name of a file in it that must be listed as failed (optional)
//   FOOTNOTE_QUESTION question to ask (default "How do I install Footnote on Linux?")
//   FOOTNOTE_NEAR_DUPLICATE a question close to it that asks something else, which must
//                     be answered fresh (default "How do I install Footnote on Linux ARM?")
//   CHROMIUM          browser executable (default /usr/bin/chromium)
//   E2E_OUT           screenshot folder (default test-results)
//   FOOTNOTE_EXPECT_DOWNLOAD=1        fail unless the "Download model" button is offered (first run);
//                                     without it the button is used only if it shows up
//   FOOTNOTE_EXPECT_STARTUP_INGEST=1  wait for an ingest the app starts by itself to fill the document list
//   FOOTNOTE_PLANTED_URL, FOOTNOTE_PLANTED_QUESTION  a link planted in a library document (next to raw
//                     HTML) and a question whose answer repeats it: the answer must show the HTML as text,
//                     keep its chips, and open the link only after confirmation
//   FOOTNOTE_THREAD=1 the library holds office.md and garden.md and the fake model misreads 1998 as 2001:
//                     a question and two follow-ups are asked in one thread (see thread.mjs)
//   FOOTNOTE_MISQUOTE_QUESTION a question the model answers with a claim its citation does not support
//                     (the fake model's -misquote): the claim must be marked with a tooltip saying why,
//                     and its citation must open on the supporting sentence
//
// Any console error, uncaught exception or Content-Security-Policy violation fails the run.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { askAndWait } from './ask.mjs';
import { checkThread } from './thread.mjs';

const URL = process.env.FOOTNOTE_URL || 'http://127.0.0.1:34115';
const LIBRARY = process.env.FOOTNOTE_LIBRARY || '';
const QUESTION = process.env.FOOTNOTE_QUESTION || 'How do I install Footnote on Linux?';
const NEAR_DUPLICATE = process.env.FOOTNOTE_NEAR_DUPLICATE || 'How do I install Footnote on Linux ARM?';
const BROKEN = process.env.FOOTNOTE_BROKEN || '';
const COLLECTION = 'e2e-library';
const OUT = process.env.E2E_OUT || 'test-results';
const OVERALL_TIMEOUT_MS = 210_000;
const ANSWER_TIMEOUT_MS = 60_000;
const MODEL_TIMEOUT_MS = 60_000;
const EXPECT_DOWNLOAD = process.env.FOOTNOTE_EXPECT_DOWNLOAD === '1';
const EXPECT_STARTUP_INGEST = process.env.FOOTNOTE_EXPECT_STARTUP_INGEST === '1';
const PLANTED_URL = process.env.FOOTNOTE_PLANTED_URL || '';
const PLANTED_QUESTION = process.env.FOOTNOTE_PLANTED_QUESTION || '';
const MISQUOTE_QUESTION = process.env.FOOTNOTE_MISQUOTE_QUESTION || '';
const THREAD = process.env.FOOTNOTE_THREAD === '1';

const timings = [];
let currentStep = 'start';
let browser;
const pageErrors = [];

function finish(ok, detail) {
  const steps = timings.map((t) => `${t.step}=${t.ms}ms`).join(' ');
  if (ok) {
    console.log(`E2E PASS (${steps})`);
  } else {
    console.log(`E2E FAIL at step "${currentStep}": ${detail}`);
    if (steps) console.log(`  completed steps: ${steps}`);
    for (const e of pageErrors) console.log(`  page: ${e}`);
  }
  const close = browser ? browser.close().catch(() => {}) : Promise.resolve();
  void close.finally(() => process.exit(ok ? 0 : 1));
}

const watchdog = setTimeout(
  () => finish(false, `overall timeout of ${OVERALL_TIMEOUT_MS / 1000}s exceeded`),
  OVERALL_TIMEOUT_MS,
);
watchdog.unref();

async function step(name, fn) {
  currentStep = name;
  const started = Date.now();
  const result = await fn();
  timings.push({ step: name, ms: Date.now() - started });
  return result;
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

async function main() {
  check(LIBRARY, 'FOOTNOTE_LIBRARY is not set; point it at a folder of documents to index.');
  await mkdir(OUT, { recursive: true });

  browser = await step('launch', () =>
    chromium.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    }),
  );
  const page = await browser.newPage({ viewport: { width: 1024, height: 700 } });
  page.setDefaultTimeout(20_000);
  page.on('pageerror', (err) => pageErrors.push(`uncaught: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(`console: ${msg.text()}`);
  });
  // CSP violations are reported through a binding, so they are caught across
  // reloads and even when the browser logs nothing for them.
  await page.exposeBinding('__reportCspViolation', (_source, v) => {
    pageErrors.push(`CSP violation: ${v.directive} blocked ${v.blocked || 'inline'} (${v.sample}) at ${v.source}:${v.line}`);
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      /** @type {any} */ (window).__reportCspViolation({
        directive: e.violatedDirective,
        blocked: e.blockedURI,
        sample: e.sample,
        source: e.sourceFile,
        line: e.lineNumber,
      });
    });
  });
  // Nothing in the app may open a second window or tab.
  const popups = [];
  page.context().on('page', (p) => popups.push(p.url()));

  await step('load', async () => {
    await page.goto(URL, { waitUntil: 'domcontentloaded' });
    await page.getByTestId('folder-input').waitFor({ state: 'visible' });
    // Remember whether an ingest progress bar ever showed (the app may index by itself).
    await page.evaluate(() => {
      const w = /** @type {any} */ (window);
      w.__sawIngestProgress = false;
      const seen = () => {
        if (document.querySelector('[data-testid="ingest-progress"]')) w.__sawIngestProgress = true;
      };
      seen();
      new MutationObserver(seen).observe(document.body, { subtree: true, childList: true });
      // Every text the progress bar showed, to check files, rate and current file later.
      w.__progressTexts = [];
      new MutationObserver(() => {
        const bar = document.querySelector('[data-testid="ingest-progress"]');
        const text = bar?.textContent ?? '';
        if (text && w.__progressTexts[w.__progressTexts.length - 1] !== text) w.__progressTexts.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    // The header facts appear once the first Status() answered.
    await page.getByTestId('status').waitFor({ state: 'visible' });
  });

  await step('model', async () => {
    const button = page.getByTestId('download-model-button');
    const offered = (await button.count()) > 0;
    check(offered || !EXPECT_DOWNLOAD, 'the "Download model" button is not offered although the model is missing');
    if (offered) {
      await button.click();
      // Bytes appear with the first model:progress event.
      await page.waitForFunction(() =>
        /\d/.test(document.querySelector('[data-testid="download-progress"]')?.textContent ?? ''),
      );
      check(await button.isDisabled(), 'the "Download model" button stays enabled while downloading');
      await page.screenshot({ path: path.join(OUT, 'download.png') });
      await page.waitForFunction(
        () =>
          !document.querySelector('[data-testid="download-model-button"]') ||
          document.querySelector('[data-testid="download-error"]'),
        undefined,
        { timeout: MODEL_TIMEOUT_MS },
      );
      const failed = page.getByTestId('download-error');
      if ((await failed.count()) > 0) throw new Error(`the download failed: ${await failed.textContent()}`);
    }
    await page.getByTestId('status-loading').waitFor({ state: 'detached', timeout: MODEL_TIMEOUT_MS });
  });

  if (EXPECT_STARTUP_INGEST) {
    await step('startup-ingest', async () => {
      await page.getByTestId('file-list').waitFor({ state: 'visible', timeout: MODEL_TIMEOUT_MS });
      await page.getByTestId('ingest-progress').waitFor({ state: 'detached' });
      const saw = await page.evaluate(() => /** @type {any} */ (window).__sawIngestProgress);
      check(saw, 'no progress bar was shown while the app indexed by itself');
      const count = await page.getByTestId('file-list').locator('li').count();
      check(count > 0, 'the document list is empty after the startup ingest finished');
      await page.screenshot({ path: path.join(OUT, 'startup.png') });
    });
  }

  const indexed = await step('add-folder', async () => {
    await page.evaluate(() => {
      /** @type {any} */ (window).__progressTexts = [];
    });
    await page.getByTestId('folder-input').fill(LIBRARY);
    await page.getByTestId('collection-name-input').fill(COLLECTION);
    await page.getByTestId('add-button').click();
    const summary = page.getByTestId('ingest-summary');
    await summary.waitFor({ state: 'visible', timeout: 60_000 });
    const files = Number(await summary.getAttribute('data-files-indexed'));
    const unchanged = Number(await summary.getAttribute('data-files-unchanged'));
    check(
      files > 0,
      `the summary shows ${files} files indexed (${unchanged} unchanged); use a fresh data directory and a folder with documents`,
    );
    // Progress ran to completion: the bar went away, and while it showed it
    // counted files, gave a rate and named the current file.
    await page.getByTestId('ingest-progress').waitFor({ state: 'detached' });
    const texts = await page.evaluate(() => /** @type {any} */ (window).__progressTexts);
    check(texts.some((t) => /\d+ \/ \d+ files/.test(t)), `the progress bar never counted files: ${JSON.stringify(texts)}`);
    check(texts.some((t) => /files\/s/.test(t)), `the progress bar never showed a rate: ${JSON.stringify(texts)}`);
    check(texts.some((t) => t.includes(LIBRARY)), `the progress bar never named the current file: ${JSON.stringify(texts)}`);
    const card = page.locator(`[data-testid="collection"][data-name="${COLLECTION}"]`);
    await card.waitFor({ state: 'visible' });
    check(Number(await card.getAttribute('data-documents')) === files, 'the collection does not count the indexed documents');
    check(/Last indexed \w/.test((await card.getByTestId('collection-indexed-at').textContent()) ?? ''), 'no last indexed time');
    check((await card.getByTestId('watch-state').textContent()) === 'watching', 'the new collection is not watched');
    await page.screenshot({ path: path.join(OUT, 'library.png') });
    return files;
  });

  if (BROKEN) {
    await step('file-status', async () => {
      const card = page.locator(`[data-testid="collection"][data-name="${COLLECTION}"]`);
      check(Number(await card.getAttribute('data-failed')) >= 1, 'the collection counts no failed file');
      await page.getByTestId('file-filter-failed').click();
      const row = page.locator(`[data-testid="file-list"] [data-path$="/${BROKEN}"]`);
      await row.waitFor({ state: 'visible' });
      check((await row.getAttribute('data-status')) === 'failed', `${BROKEN} is not listed as failed`);
      const reason = ((await row.getByTestId('file-detail').textContent()) ?? '').trim();
      check(reason.length > 5 && !/^failed$/.test(reason), `${BROKEN} is listed without a reason: "${reason}"`);
      await page.getByTestId('file-filter-indexed').click();
      check(
        Number(await page.getByTestId('file-list').getAttribute('data-total')) === indexed,
        'the indexed filter does not list every indexed document',
      );
      await page.getByTestId('file-filter-all').click();
    });
  }

  await step('rescan', async () => {
    const card = page.locator(`[data-testid="collection"][data-name="${COLLECTION}"]`);
    await card.getByTestId('rescan-button').click();
    const summary = page.getByTestId('ingest-summary');
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="ingest-summary"]')?.getAttribute('data-files-unchanged') ?? 0) > 0,
      undefined,
      { timeout: 60_000 },
    );
    check(Number(await summary.getAttribute('data-files-indexed')) === 0, 'a re-scan of unchanged files indexed some again');
  });

  // Record every change of the newest answer's text length, with its phase.
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    w.__e2eLengths = [];
    const log = document.querySelector('.chat-log');
    if (!log) throw new Error('chat log not found');
    const record = () => {
      const turns = document.querySelectorAll('[data-testid="turn"]');
      const last = turns[turns.length - 1];
      if (!last) return;
      const body = last.querySelector('[data-testid="answer-body"]');
      const length = (body?.textContent ?? '').length;
      const phase = last.getAttribute('data-phase');
      const prev = w.__e2eLengths[w.__e2eLengths.length - 1];
      if (!prev || prev.length !== length || prev.phase !== phase) w.__e2eLengths.push({ length, phase, at: Date.now() });
    };
    new MutationObserver(record).observe(log, { subtree: true, childList: true, characterData: true, attributes: true });
  });

  await step('ask', async () => {
    const input = page.getByTestId('question-input');
    await input.fill(QUESTION);
    await input.press('Enter');
    await page.locator('[data-testid="turn"]').last().waitFor({ state: 'visible' });
  });

  const lastTurn = page.locator('[data-testid="turn"]').last();
  await step('answer', async () => {
    await page.waitForFunction(
      () => {
        const turns = document.querySelectorAll('[data-testid="turn"]');
        const phase = turns[turns.length - 1]?.getAttribute('data-phase');
        return phase === 'done' || phase === 'error' || phase === 'stopped';
      },
      undefined,
      { timeout: ANSWER_TIMEOUT_MS },
    );
    const phase = await lastTurn.getAttribute('data-phase');
    if (phase === 'error') {
      const message = await lastTurn.getByTestId('answer-error').textContent();
      throw new Error(`the app reported: ${message}`);
    }
    check(phase === 'done', `the answer ended in phase "${phase}"`);
  });

  await step('streaming', async () => {
    const samples = await page.evaluate(() => /** @type {any} */ (window).__e2eLengths);
    const streamed = samples.filter((s) => s.phase !== 'done').map((s) => s.length);
    const increasing = [];
    for (const length of streamed) {
      if (length > 0 && (increasing.length === 0 || length > increasing[increasing.length - 1])) increasing.push(length);
    }
    check(
      increasing.length >= 3,
      `expected the answer to grow in at least 3 steps before done, saw lengths [${streamed.join(', ')}]`,
    );
  });

  const chip = lastTurn.locator('button.cite').first();
  await step('chips', async () => {
    const count = await lastTurn.locator('button.cite').count();
    check(count >= 1, 'the final answer has no citation chips');
    await page.screenshot({ path: path.join(OUT, 'chat.png') });
  });

  const tooltip = page.getByTestId('citation-tooltip');
  await step('tooltip-hover', async () => {
    await chip.hover();
    await tooltip.waitFor({ state: 'visible' });
    await checkTooltip(tooltip);
    await page.screenshot({ path: path.join(OUT, 'tooltip.png') });
    await page.mouse.move(1, 1);
    await tooltip.waitFor({ state: 'hidden' });
  });

  await step('tooltip-focus', async () => {
    await chip.focus();
    await tooltip.waitFor({ state: 'visible' });
    await checkTooltip(tooltip);
    await page.keyboard.press('Escape');
    await tooltip.waitFor({ state: 'hidden' });
  });

  await step('keyboard-citations', async () => {
    const chips = lastTurn.locator('button.cite');
    if ((await chips.count()) < 2) return;
    await chips.nth(0).focus();
    await page.keyboard.press('ArrowRight');
    const focusedN = await page.evaluate(() => document.activeElement?.getAttribute('data-n'));
    const secondN = await chips.nth(1).getAttribute('data-n');
    check(focusedN === secondN, `ArrowRight moved focus to citation ${focusedN}, expected ${secondN}`);
    await page.keyboard.press('Escape');
  });

  await step('source-viewer', async () => {
    // The stored answer is the independent record of what each citation says.
    const stored = await page.evaluate(async () => {
      const app = /** @type {any} */ (window).go.app.App;
      const [latest] = await app.History('', 1);
      return latest;
    });
    check(stored && stored.citations && stored.citations.length > 0, 'History() returned no answer with citations');
    const n = Number(await chip.getAttribute('data-n'));
    const cited = stored.citations.find((c) => c.n === n);
    check(cited, `the stored answer has no citation ${n}`);
    await chip.click();
    const mark = page.getByTestId('source-highlight');
    await mark.waitFor({ state: 'visible' });
    const highlighted = await mark.textContent();
    check(
      highlighted === cited.text,
      `the highlighted span differs from citation ${n}: got ${JSON.stringify(highlighted?.slice(0, 80))}, want ${JSON.stringify(cited.text.slice(0, 80))}`,
    );
    check(await mark.isVisible(), 'the highlighted span is not scrolled into view');
    // Inside the passage, the sentence(s) supporting the chip's claim stand out.
    const claim = Number((await chip.getAttribute('data-claim')) ?? -1);
    const result = (stored.claims?.[claim]?.results ?? []).find((r) => r.n === n);
    check(result && result.span.text, `the stored answer has no support span for claim ${claim} and citation ${n}`);
    const strong = page.getByTestId('source-support');
    check((await strong.textContent()) === result.span.text, `the strong highlight is ${JSON.stringify(await strong.textContent())}, want ${JSON.stringify(result.span.text)}`);
    check(await strong.isVisible(), 'the supporting sentence is not scrolled into view');
    await page.screenshot({ path: path.join(OUT, 'source-viewer.png') });
    if (stored.citations.length > 1) {
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => /^\s*2\s*\//.test(document.querySelector('.viewer-count')?.textContent ?? ''));
    }
    await page.keyboard.press('Escape');
    await page.getByTestId('source-viewer').waitFor({ state: 'detached' });
    await page.mouse.move(1, 1);
  });

  await step('export', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      lastTurn.getByTestId('export-answer').click(),
    ]);
    const file = path.join(OUT, 'answer.md');
    await download.saveAs(file);
    const text = await readFile(file, 'utf8');
    check(text.startsWith(`## ${QUESTION}`), `the export does not start with the question: ${text.slice(0, 60)}`);
    check(/\[\^\d+\]:/.test(text), 'the export has no footnotes');
    check(!/\[#\d+\]/.test(text), 'the export still contains [#n] markers');
  });

  await step('cache', async () => {
    // The same question again is served from the semantic answer cache and
    // says so: a badge whose tooltip names the original question.
    await askAndWait(page, QUESTION, ANSWER_TIMEOUT_MS);
    const turn = page.locator('[data-testid="turn"]').last();
    const badge = turn.getByTestId('cache-badge');
    check((await badge.count()) === 1, 'the repeated question was not marked as served from the cache');
    await badge.hover();
    const tip = turn.getByTestId('cache-tooltip');
    await tip.waitFor({ state: 'visible' });
    const text = (await tip.textContent()) ?? '';
    check(text.includes('Served from the answer cache'), `the cache tooltip does not disclose the cache: ${text}`);
    check(text.includes(QUESTION), 'the cache tooltip does not name the original question');
    check(/Similarity \d\.\d\d/.test(text), `the cache tooltip shows no similarity: ${text}`);
    check((await turn.getByTestId('cache-policy').textContent())?.includes('revision'), 'the cache tooltip shows no revalidation policy');
    const matched = (await turn.getByTestId('cache-matched').textContent()) ?? '';
    check(
      matched.includes('Same question') && matched.includes('cited passage'),
      `the cache tooltip does not say what matched: ${matched}`,
    );
    await page.screenshot({ path: path.join(OUT, 'cache.png') });
    await page.mouse.move(1, 1);
  });

  await step('near-duplicate', async () => {
    // A question that embeds close to the cached one but asks something
    // else must be answered fresh, never served the cached answer.
    await askAndWait(page, NEAR_DUPLICATE, ANSWER_TIMEOUT_MS);
    const turn = page.locator('[data-testid="turn"]').last();
    check((await turn.getByTestId('cache-badge').count()) === 0, `"${NEAR_DUPLICATE}" was served from the cache`);
    const stored = await page.evaluate(async () => {
      const app = /** @type {any} */ (window).go.app.App;
      const [latest] = await app.History('', 1);
      return latest;
    });
    check(stored && stored.question === NEAR_DUPLICATE && !stored.cache, `the stored answer to "${NEAR_DUPLICATE}" came from the cache`);
  });

  if (MISQUOTE_QUESTION) {
    await step('unsupported-claim', () => checkUnsupportedClaim(page));
  }

  await step('stop', async () => {
    const input = page.getByTestId('question-input');
    await input.fill('Where does Footnote keep its data?');
    await input.press('Enter');
    await page.waitForFunction(() => {
      const turns = document.querySelectorAll('[data-testid="turn"]');
      return turns[turns.length - 1]?.getAttribute('data-phase') === 'streaming';
    });
    await page.getByTestId('stop-button').waitFor({ state: 'visible' });
    await page.keyboard.press('Escape');
    await page.waitForFunction(
      () => {
        const turns = document.querySelectorAll('[data-testid="turn"]');
        return turns[turns.length - 1]?.getAttribute('data-phase') === 'stopped';
      },
      undefined,
      { timeout: ANSWER_TIMEOUT_MS },
    );
  });

  if (PLANTED_URL) {
    await step('planted-link', () => checkPlantedLink(page, popups));
  }

  await step('settings', async () => {
    await page.getByTestId('settings-button').click();
    const picker = page.getByTestId('model-picker');
    await picker.waitFor({ state: 'visible' });
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll('[data-testid="model-picker"] option:not([data-testid="model-unlisted"])')).some(
        (o) => o.getAttribute('value') === 'footnote-test:latest' || o.getAttribute('value') === 'footnote-test',
      ),
    );
    check(!/not installed/.test((await picker.locator('option:checked').textContent()) ?? ''), 'the configured model shows as not installed');
    await page.screenshot({ path: path.join(OUT, 'settings.png') });
    // A stricter word match gate than the default, kept across a restart; the
    // unrelated question below holds no word of the library and is refused at any gate.
    await page.getByTestId('gate-input').fill('0.3');
    await page.getByTestId('k-input').fill('5');
    await page.getByTestId('theme-picker').selectOption('dark');
    await page.getByTestId('settings-save').click();
    await page.waitForFunction(() => /Saved/.test(document.querySelector('[data-testid="settings-result"]')?.textContent ?? ''));
    await page.getByTestId('settings-close').click();
    await page.getByTestId('settings-panel').waitFor({ state: 'detached' });
  });

  await step('settings-persist', async () => {
    // A fresh profile's storage would forget a theme kept only in the page;
    // clearing it proves the theme comes back from settings.json.
    await page.evaluate(() => localStorage.clear());
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.getByTestId('status').waitFor({ state: 'visible' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    check((await page.getByTestId('remote-badge').count()) === 0, 'a model server on this machine is shown as remote');
    await page.getByTestId('settings-button').click();
    await page.getByTestId('gate-input').waitFor({ state: 'visible' });
    check((await page.getByTestId('gate-input').inputValue()) === '0.3', 'the word match gate was not kept');
    check((await page.getByTestId('k-input').inputValue()) === '5', 'k was not kept');
    check((await page.getByTestId('theme-picker').inputValue()) === 'dark', 'the theme was not kept');
    check((await page.getByTestId('mode-picker').inputValue()) === 'hybrid', 'the retrieval mode changed by itself');
    await page.getByTestId('settings-close').click();
    await page.getByTestId('settings-panel').waitFor({ state: 'detached' });
  });

  await step('settings-remote', async () => {
    // A model server on another machine is saved only after a confirmation
    // naming it; Escape cancels and nothing is saved.
    await page.getByTestId('settings-button').click();
    const host = page.locator('#set-host');
    await host.waitFor({ state: 'visible' });
    const before = await host.inputValue();
    await host.fill('gpu-box.invalid:11434');
    await page.getByTestId('settings-save').click();
    const dialog = page.getByTestId('remote-confirm');
    await dialog.waitFor({ state: 'visible' });
    check(/gpu-box\.invalid:11434/.test((await dialog.textContent()) ?? ''), 'the confirmation does not name the remote server');
    check(
      (await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))) === 'remote-cancel',
      'the confirmation does not start on Cancel',
    );
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    check(/Not saved/.test((await page.getByTestId('settings-result').textContent()) ?? ''), 'cancelling did not say nothing was saved');
    await host.fill(before);
    await page.getByTestId('settings-close').click();
    await page.getByTestId('settings-panel').waitFor({ state: 'detached' });
  });

  await step('refusal', async () => {
    const input = page.getByTestId('question-input');
    // No word of it occurs in the sample library, so the best passage matches
    // none of its key words and the score gate refuses it, saying so.
    await input.fill('Peru capital city population?');
    await input.press('Enter');
    await page.waitForFunction(
      () => {
        const turns = document.querySelectorAll('[data-testid="turn"]');
        const phase = turns[turns.length - 1]?.getAttribute('data-phase');
        return phase === 'done' || phase === 'error';
      },
      undefined,
      { timeout: ANSWER_TIMEOUT_MS },
    );
    const turn = page.locator('[data-testid="turn"]').last();
    check((await turn.getByTestId('refusal-badge').count()) === 1, 'the unrelated question was answered, not refused');
    const reason = ((await turn.getByTestId('refusal-reason').textContent()) ?? '').trim();
    check(reason !== '', 'the refusal shows no reason');
    check(/key words/.test(reason), `the refusal does not say what the closest passages lack: ${reason}`);
    const candidates = await turn.getByTestId('nearest').locator('li').count();
    check(candidates > 0, 'the refusal lists no nearest candidates');
    await page.screenshot({ path: path.join(OUT, 'refusal.png') });
  });

  if (THREAD) {
    await step('thread', () =>
      checkThread(page, {
        check,
        answerTimeoutMs: ANSWER_TIMEOUT_MS,
        screenshot: (name) => page.screenshot({ path: path.join(OUT, name) }).then(() => {}),
      }),
    );
  }

  await step('remove', async () => {
    const card = page.locator(`[data-testid="collection"][data-name="${COLLECTION}"]`);
    await card.getByTestId('remove-button').click();
    await card.getByTestId('remove-confirm').click();
    await card.waitFor({ state: 'detached', timeout: 60_000 });
    const docs = await page.evaluate(async () => (await /** @type {any} */ (window).go.app.App.Documents()) ?? []);
    check(docs.length === 0, `${docs.length} documents are still indexed after removing the collection`);
  });

  currentStep = 'page-errors';
  check(pageErrors.length === 0, `the page reported ${pageErrors.length} error(s): ${pageErrors.join('; ')}`);
  check(popups.length === 0, `the app opened other windows: ${popups.join(', ')}`);
  console.log(`indexed ${indexed} files; screenshots in ${OUT}`);
}

/**
 * A library document plants a link and raw HTML; the fake model repeats
 * them. The answer shows the HTML as text with its chips, and the link opens
 * only after the confirmation showing its full address. App.OpenLink is the
 * only way to the system opener, so it is replaced by a recorder in the page
 * (nothing really opens); the real binding is asked separately to open
 * addresses it must refuse.
 */
async function checkPlantedLink(page, popups) {
  check(PLANTED_QUESTION, 'FOOTNOTE_PLANTED_QUESTION is not set');
  const startURL = page.url();
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    const app = w.go.app.App;
    w.__openLinkCalls = [];
    w.__realOpenLink = app.OpenLink;
    app.OpenLink = (url) => {
      w.__openLinkCalls.push(url);
      return Promise.resolve();
    };
    w.__browserOpenCalls = [];
    if (w.runtime) w.runtime.BrowserOpenURL = (url) => w.__browserOpenCalls.push(url);
  });
  const openCalls = () => page.evaluate(() => /** @type {any} */ (window).__openLinkCalls);

  await askAndWait(page, PLANTED_QUESTION, ANSWER_TIMEOUT_MS);
  const turn = page.locator('[data-testid="turn"]').last();
  check((await turn.getAttribute('data-phase')) === 'done', 'the answer about the planted document did not finish');
  const stored = await page.evaluate(async () => (await /** @type {any} */ (window).go.app.App.History('', 1))[0]);
  check(stored.grounded, `the answer about the planted document was not grounded: ${stored.refusal_reason}`);
  for (const part of [PLANTED_URL, '<img src=x onerror=window.__pwned=1>', '</script >']) {
    check(stored.answer.includes(part), `the fake model did not repeat ${JSON.stringify(part)}: ${stored.answer}`);
  }

  const body = turn.getByTestId('answer-body');
  const shown = (await body.textContent()) ?? '';
  check(shown.includes('<img src=x onerror=window.__pwned=1>'), `the raw HTML is not shown as text: ${shown}`);
  check(shown.includes('</script > must not hide the words after it.'), `text after "</script " is missing: ${shown}`);
  check((await body.locator('img, script, svg, iframe').count()) === 0, 'raw HTML in the answer became elements');
  check(!(await page.evaluate(() => /** @type {any} */ (window).__pwned)), 'the planted onerror handler ran');
  const known = new Set(stored.citations.map((c) => c.n));
  const markers = [...stored.answer.matchAll(/\[#(\d{1,3})\]/g)].filter((m) => known.has(Number(m[1]))).length;
  const chips = await body.locator('button.cite').count();
  check(markers >= 1 && chips === markers, `${chips} chips for ${markers} validated markers`);
  check((await turn.getByText('Grounded', { exact: true }).count()) === 1, 'the planted answer is not marked grounded');
  const links = body.locator('a');
  check((await links.count()) === 1, `expected one link in the answer, found ${await links.count()}`);
  check((await links.first().getAttribute('href')) === PLANTED_URL, 'the link does not carry the planted address');
  await turn.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(OUT, 'hostile-answer.png') });

  // A click asks first and shows the whole address; Escape opens nothing.
  await links.first().click();
  const dialog = page.getByTestId('link-confirm');
  await dialog.waitFor({ state: 'visible' });
  check((await page.getByTestId('link-url').textContent()) === PLANTED_URL, 'the confirmation does not show the full address');
  check((await page.getByTestId('link-host').textContent()) === new globalThis.URL(PLANTED_URL).host, 'the confirmation does not name the host');
  await page.screenshot({ path: path.join(OUT, 'link-confirm.png') });
  check((await openCalls()).length === 0, 'the link opened before it was confirmed');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  check(
    await page.evaluate(() => !!document.activeElement?.closest('[data-testid="link-confirm"]')),
    'focus left the confirmation dialog',
  );
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  check((await openCalls()).length === 0, 'Escape opened the link');

  // Enter confirms: exactly the shown address goes to the app, once.
  await links.first().click();
  await dialog.waitFor({ state: 'visible' });
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'detached' });
  const calls = await openCalls();
  check(calls.length === 1 && calls[0] === PLANTED_URL, `after confirming, the app was asked to open ${JSON.stringify(calls)}`);
  check(
    (await page.evaluate(() => /** @type {any} */ (window).__browserOpenCalls)).length === 0,
    'the page called the runtime opener directly',
  );
  check(page.url() === startURL && popups.length === 0, 'following the link navigated the app or opened a window');

  // The Go side refuses what the UI never offers.
  const refused = await page.evaluate(async () => {
    const open = /** @type {any} */ (window).__realOpenLink;
    const out = [];
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,hi', '1', '//evil.example/x', 'https://u:p@evil.example/']) {
      try {
        await open(url);
        out.push({ url, error: '' });
      } catch (err) {
        out.push({ url, error: String(err && err.message ? err.message : err) });
      }
    }
    return out;
  });
  for (const r of refused) {
    check(/only absolute http/.test(r.error), `App.OpenLink(${JSON.stringify(r.url)}) was not refused: ${r.error || 'it succeeded'}`);
  }
}

/**
 * The fake model misquotes the passage it cites ("40 MB" where it says
 * "20 MB"). The answer is not grounded, the claim is marked with a
 * keyboard-reachable tooltip giving the verifier's reason, the footer names
 * it and jumps to it, and its citation opens on the supporting sentence.
 */
async function checkUnsupportedClaim(page) {
  await askAndWait(page, MISQUOTE_QUESTION, ANSWER_TIMEOUT_MS);
  const turn = page.locator('[data-testid="turn"]').last();
  check((await turn.getAttribute('data-phase')) === 'done', 'the misquoted answer did not finish');
  const stored = await page.evaluate(async () => (await /** @type {any} */ (window).go.app.App.History('', 1))[0]);
  check(stored.question === MISQUOTE_QUESTION, `the latest stored answer is for ${JSON.stringify(stored.question)}`);
  check(stored.refusal_reason === 'unsupported_claim', `the misquoted answer was not refused as unsupported: ${stored.refusal_reason}`);
  const failing = stored.verification?.failing ?? [];
  check(failing.length >= 1, 'the stored verification names no failing claim');
  const i = failing[0];
  const bad = stored.claims[i];
  check(/40 MB/.test(bad.claim.text) && bad.verdict === 'unsupported', `claim ${i} is ${bad.verdict}: ${bad.claim.text}`);
  check((await turn.getByTestId('refusal-badge').count()) === 1, 'the answer with an unsupported claim is not marked as not answered');

  // The claim's words are marked, and nothing else.
  const pieces = turn.locator(`.claim-flag[data-claim="${i}"]`);
  check((await pieces.count()) >= 1, `claim ${i} is not marked in the answer`);
  const marked = (await pieces.allTextContents()).join('').trim();
  const want = bad.claim.text.replace(/\s*\[#\d+\]/g, '').trim();
  check(marked === want, `the marked text is ${JSON.stringify(marked)}, want ${JSON.stringify(want)}`);
  const markedClaims = await turn.locator('.claim-flag').evaluateAll((els) => [...new Set(els.map((e) => Number(e.getAttribute('data-claim'))))].sort((a, b) => a - b));
  const flagged = stored.claims.flatMap((c, k) => (['partial', 'unsupported', 'uncited'].includes(c.verdict) ? [k] : []));
  check(JSON.stringify(markedClaims) === JSON.stringify(flagged), `claims ${JSON.stringify(markedClaims)} are marked, want ${JSON.stringify(flagged)}`);

  // Keyboard: the claim takes focus and its tooltip says why.
  await pieces.first().focus();
  const tip = page.getByTestId('claim-tooltip');
  await tip.waitFor({ state: 'visible' });
  const why = (await tip.textContent()) ?? '';
  check(why.startsWith('not supported by [#') && why.includes(bad.reason), `the claim tooltip says ${JSON.stringify(why)}, want Go's reason ${JSON.stringify(bad.reason)}`);
  check(/20 MB/.test(why) && /40 MB/.test(why), `the tooltip does not name both values: ${why}`);
  const footer = (await turn.getByTestId('claim-check').textContent()) ?? '';
  const v = stored.verification;
  check(footer.startsWith(`${v.supported + v.partial} of ${v.claims} claim`), `the footer says ${JSON.stringify(footer)}`);
  await turn.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(OUT, 'unsupported-claim.png') });
  await page.keyboard.press('Escape');
  await tip.waitFor({ state: 'hidden' });

  // The footer jumps to the failing claim.
  await page.locator('body').focus();
  await turn.getByTestId('claim-jump').first().click();
  const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-claim'));
  check(focused === String(i), `the footer jumped to claim ${focused}, want ${i}`);
  await page.keyboard.press('Escape');

  // Its citation opens on the sentence the passage really says.
  const chip = turn.locator(`button.cite[data-claim="${i}"]`).first();
  const n = Number(await chip.getAttribute('data-n'));
  const result = bad.results.find((r) => r.n === n);
  await chip.hover();
  const citeTip = page.getByTestId('citation-tooltip');
  await citeTip.waitFor({ state: 'visible' });
  const verdict = ((await citeTip.getByTestId('tooltip-verdict').textContent()) ?? '').trim();
  check(verdict.startsWith('not supported · score'), `the citation tooltip verdict is ${JSON.stringify(verdict)}`);
  check(/20 MB/.test((await citeTip.getByTestId('tooltip-span').textContent()) ?? ''), 'the citation tooltip does not show the supporting span');
  await chip.click();
  const strong = page.getByTestId('source-support');
  await strong.waitFor({ state: 'visible' });
  check((await strong.textContent()) === result.span.text, `the strong highlight is ${JSON.stringify(await strong.textContent())}, want ${JSON.stringify(result.span.text)}`);
  const passage = stored.citations.find((c) => c.n === n);
  check((await page.getByTestId('source-highlight').textContent()) === passage.text, 'the faint highlight is not the whole passage');
  await page.screenshot({ path: path.join(OUT, 'sentence-highlight.png') });
  await page.keyboard.press('Escape');
  await page.getByTestId('source-viewer').waitFor({ state: 'detached' });
  await page.mouse.move(1, 1);
}

async function checkTooltip(tooltip) {
  const section = ((await tooltip.getByTestId('tooltip-section').textContent()) ?? '').trim();
  const score = ((await tooltip.getByTestId('tooltip-score').textContent()) ?? '').trim();
  check(section !== '', 'the tooltip shows no section id');
  check(/^\d\.\d\d$/.test(score), `the tooltip score "${score}" is not a number like 0.87`);
  // The provenance payload rows.
  const row = async (id) => ((await tooltip.getByTestId(id).textContent()) ?? '').trim();
  const hash = await row('tooltip-index-hash');
  check(/^[0-9a-f]{16}$/.test(hash), `the tooltip index hash "${hash}" is not a 16-digit hex id`);
  check((await row('tooltip-rev')) !== '', 'the tooltip shows no document revision');
  check(/\d/.test(await row('tooltip-indexed')), 'the tooltip shows no indexed time');
  check((await row('tooltip-analyzer')).startsWith('fts5:'), 'the tooltip shows no analyzer');
  check((await row('tooltip-tier')) === '1 · your documents', `the tooltip data tier is "${await row('tooltip-tier')}"`);
  check((await tooltip.getByTestId('tooltip-stale').count()) === 0, 'a fresh passage is flagged as stale');
}

main().then(
  () => finish(true),
  (err) => finish(false, err instanceof Error ? err.message.split('\n')[0] : String(err)),
);
