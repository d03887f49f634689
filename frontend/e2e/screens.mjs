// Screenshots of every screen in light and dark themes at 1024×700, for
// looking at the UI as a user would. Drives a running app like app.e2e.mjs.
//
// Environment: FOOTNOTE_URL, FOOTNOTE_LIBRARY (required), CHROMIUM, E2E_OUT,
// FOOTNOTE_MISQUOTE_QUESTION (optional: a question answered with an
// unsupported claim, see scripts/e2e.sh, for the marked-claim screens).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright-core';

const URL = process.env.FOOTNOTE_URL || 'http://127.0.0.1:34115';
const LIBRARY = process.env.FOOTNOTE_LIBRARY || '';
const OUT = process.env.E2E_OUT || 'test-results/screens';
const MISQUOTE_QUESTION = process.env.FOOTNOTE_MISQUOTE_QUESTION || '';

async function shoot(page, name) {
  for (const theme of ['light', 'dark']) {
    await page.evaluate((t) => {
      document.documentElement.dataset.theme = t;
    }, theme);
    await page.waitForTimeout(50); // let the repaint settle before capturing
    await page.screenshot({ path: path.join(OUT, `${name}-${theme}.png`) });
  }
}

async function main() {
  if (!LIBRARY) throw new Error('FOOTNOTE_LIBRARY is not set');
  await mkdir(OUT, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1024, height: 700 } });
    page.setDefaultTimeout(30_000);
    await page.goto(URL, { waitUntil: 'domcontentloaded' });
    await page.getByTestId('status').waitFor();
    await page.getByTestId('status-loading').waitFor({ state: 'detached', timeout: 60_000 });
    await shoot(page, '01-first-run');

    await page.getByTestId('folder-input').fill(LIBRARY);
    await page.getByTestId('collection-name-input').fill('sample');
    await page.getByTestId('add-button').click();
    await page.getByTestId('ingest-progress').waitFor({ timeout: 60_000 });
    await shoot(page, '02-library-progress');
    await page.getByTestId('ingest-summary').waitFor({ timeout: 60_000 });
    await page.getByTestId('ingest-progress').waitFor({ state: 'detached', timeout: 60_000 });
    await shoot(page, '02-library');
    if ((await page.getByTestId('file-filter-failed').count()) > 0) {
      await page.getByTestId('file-filter-failed').click();
      await shoot(page, '02-library-failed');
      await page.getByTestId('file-filter-all').click();
    }
    await page.getByTestId('remove-button').first().click();
    await shoot(page, '02-library-remove-confirm');
    await page.getByTestId('remove-cancel').click();

    const input = page.getByTestId('question-input');
    await input.fill('How do I install Footnote on Linux?');
    await input.press('Enter');
    await page.waitForFunction(() => {
      const t = document.querySelectorAll('[data-testid="turn"]');
      return t[t.length - 1]?.getAttribute('data-phase') === 'streaming';
    });
    await page.waitForTimeout(400);
    await shoot(page, '03-streaming');
    await page.waitForFunction(() => {
      const t = document.querySelectorAll('[data-testid="turn"]');
      return ['done', 'error', 'stopped'].includes(t[t.length - 1]?.getAttribute('data-phase') ?? '');
    });
    await shoot(page, '04-answer');

    const chip = page.locator('[data-testid="turn"]').last().locator('button.cite').first();
    await chip.hover();
    await page.getByTestId('citation-tooltip').waitFor();
    await shoot(page, '05-tooltip');
    await page.mouse.move(1, 1);

    await page.locator('[data-testid="turn"]').last().getByTestId('provenance').locator('summary').click();
    await page.locator('[data-testid="turn"]').last().getByTestId('provenance').scrollIntoViewIfNeeded();
    await shoot(page, '04-answer-provenance');

    await chip.click();
    await page.getByTestId('source-highlight').waitFor();
    await shoot(page, '06-viewer');
    await page.keyboard.press('Escape');

    if (MISQUOTE_QUESTION) {
      await input.fill(MISQUOTE_QUESTION);
      await input.press('Enter');
      await page.waitForFunction(() => {
        const t = document.querySelectorAll('[data-testid="turn"]');
        return t.length > 1 && ['done', 'error', 'stopped'].includes(t[t.length - 1]?.getAttribute('data-phase') ?? '');
      });
      const turn = page.locator('[data-testid="turn"]').last();
      await turn.scrollIntoViewIfNeeded();
      await shoot(page, '06-unsupported-answer');
      await turn.locator('.claim-flag[tabindex="0"]').first().focus();
      await page.getByTestId('claim-tooltip').waitFor();
      await shoot(page, '06-unsupported-tooltip');
      await page.keyboard.press('Escape');
      const bad = turn.locator('.claim-flag').first();
      const claim = await bad.getAttribute('data-claim');
      const badChip = turn.locator(`button.cite[data-claim="${claim}"]`).first();
      await badChip.hover();
      await page.getByTestId('citation-tooltip').waitFor();
      await shoot(page, '06-unsupported-citation-tooltip');
      await page.mouse.move(1, 1);
      await badChip.click();
      await page.getByTestId('source-support').waitFor();
      await shoot(page, '06-sentence-highlight');
      await page.keyboard.press('Escape');
    }

    await page.getByTestId('settings-button').click();
    await page.getByTestId('settings-panel').waitFor();
    await page.waitForTimeout(300);
    await shoot(page, '07-settings');
    await page.getByTestId('gate-input').fill('1');
    await page.getByTestId('settings-save').click();
    await page.getByTestId('settings-result').waitFor();
    await shoot(page, '08-settings-saved');
    await page.getByTestId('settings-close').click();

    await input.fill('Peru capital city population?');
    await input.press('Enter');
    await page.waitForFunction(() => {
      const t = document.querySelectorAll('[data-testid="turn"]');
      return ['done', 'error', 'stopped'].includes(t[t.length - 1]?.getAttribute('data-phase') ?? '');
    });
    await shoot(page, '09-refusal');

    await page.getByTestId('history-button').click();
    await page.getByTestId('history-list').waitFor();
    await page.waitForTimeout(300);
    await shoot(page, '10-history');
    console.log(`screenshots in ${OUT}`);
  } finally {
    await browser.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
