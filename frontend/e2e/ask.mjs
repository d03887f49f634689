// Asking in the browser E2E: type a question, press Enter, wait until a new
// turn has finished (done or error) and return it.

/**
 * @param {import('playwright-core').Page} page
 * @param {string} question
 * @param {number} timeoutMs
 */
export async function askAndWait(page, question, timeoutMs) {
  const before = await page.locator('[data-testid="turn"]').count();
  const input = page.getByTestId('question-input');
  await input.fill(question);
  await input.press('Enter');
  await page.waitForFunction(
    (n) => {
      const turns = document.querySelectorAll('[data-testid="turn"]');
      const phase = turns[turns.length - 1]?.getAttribute('data-phase');
      return turns.length > n && (phase === 'done' || phase === 'error');
    },
    before,
    { timeout: timeoutMs },
  );
  return page.locator('[data-testid="turn"]').last();
}
