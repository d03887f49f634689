import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { citation, installFakeBridge, removeFakeBridge, type FakeBridge } from '../testing/fixtures';
import { OpenSourceContext } from '../viewer';
import { AnswerBody } from './AnswerBody';

const URL_PLANTED = 'https://ferry.example.com/timetable?session=SECRET-TOKEN&user=me';

function answer(text: string) {
  return render(<AnswerBody text={text} citations={[citation(1)]} idPrefix="a1" streaming={false} />);
}

describe('links in answers', () => {
  let bridge: FakeBridge;
  beforeEach(() => {
    bridge = installFakeBridge();
    bridge.app.OpenLink.mockResolvedValue(undefined);
  });
  afterEach(() => {
    cleanup();
    removeFakeBridge();
  });

  it('opens only after the full address was confirmed with Enter', async () => {
    const user = userEvent.setup();
    answer(`The timetable is at [the ferry site](${URL_PLANTED}) [#1].`);
    const link = screen.getByRole('link', { name: 'the ferry site' });

    await user.click(link);
    const dialog = await screen.findByTestId('link-confirm');
    expect(screen.getByTestId('link-url').textContent).toBe(URL_PLANTED);
    expect(screen.getByTestId('link-host').textContent).toBe('ferry.example.com');
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(document.activeElement).toBe(screen.getByTestId('link-open'));
    expect(bridge.app.OpenLink).not.toHaveBeenCalled();

    await user.keyboard('{Enter}');
    await waitFor(() => expect(screen.queryByTestId('link-confirm')).toBeNull());
    expect(bridge.app.OpenLink.mock.calls).toEqual([[URL_PLANTED]]);
  });

  it('Escape, Cancel and Enter on Cancel close it without opening', async () => {
    const user = userEvent.setup();
    const onWindowKey = vi.fn();
    window.addEventListener('keydown', onWindowKey);
    answer(`See [site](${URL_PLANTED}).`);
    const link = screen.getByRole('link', { name: 'site' });

    await user.click(link);
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('link-confirm')).toBeNull();
    // The Escape stays in the dialog (the chat would stop an answer on it).
    expect(onWindowKey).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(link);

    await user.click(link);
    await user.click(screen.getByTestId('link-cancel'));
    expect(screen.queryByTestId('link-confirm')).toBeNull();

    await user.click(link);
    screen.getByTestId('link-cancel').focus();
    await user.keyboard('{Enter}');
    expect(screen.queryByTestId('link-confirm')).toBeNull();
    window.removeEventListener('keydown', onWindowKey);
    expect(bridge.app.OpenLink).not.toHaveBeenCalled();
  });

  it('keeps focus inside the dialog', async () => {
    const user = userEvent.setup();
    answer(`See [site](${URL_PLANTED}).`);
    await user.click(screen.getByRole('link', { name: 'site' }));
    const open = screen.getByTestId('link-open');
    const cancel = screen.getByTestId('link-cancel');
    expect(document.activeElement).toBe(open);
    await user.tab();
    expect(document.activeElement).toBe(cancel);
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(open);
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(cancel);
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(open);
    expect(bridge.app.OpenLink).not.toHaveBeenCalled();
  });

  it('shows why the app refused a link and keeps the dialog open', async () => {
    const user = userEvent.setup();
    bridge.app.OpenLink.mockRejectedValue('the link was not opened: it carries a user name or password');
    answer(`See [site](${URL_PLANTED}).`);
    await user.click(screen.getByRole('link', { name: 'site' }));
    await user.click(screen.getByTestId('link-open'));
    expect((await screen.findByTestId('link-error')).textContent).toContain('user name or password');
    expect(screen.getByTestId('link-confirm')).toBeTruthy();
  });

  it('never offers file:, javascript:, data: or relative links', async () => {
    const user = userEvent.setup();
    const text = [
      '[passwd](file:///etc/passwd)',
      '[js](javascript:alert(1))',
      '[data](data:text/html,hi)',
      '[one](1)',
      '[root](/etc/passwd)',
      '[pr](//evil.example/x)',
      '<a href="1">raw</a>',
    ].join(' ');
    const { getByTestId } = answer(text);
    const body = getByTestId('answer-body');
    expect(body.querySelector('a')).toBeNull();
    expect(body.textContent).toBe(text);
    await user.click(body);
    fireEvent.click(body.firstElementChild!);
    expect(screen.queryByTestId('link-confirm')).toBeNull();
    expect(bridge.app.OpenLink).not.toHaveBeenCalled();
  });

  it('a chip inside a link opens its source, not the link', async () => {
    const user = userEvent.setup();
    const openSource = vi.fn();
    render(
      <OpenSourceContext.Provider value={openSource}>
        <AnswerBody text={`[see [#1]](${URL_PLANTED})`} citations={[citation(1)]} idPrefix="a2" streaming={false} />
      </OpenSourceContext.Provider>,
    );
    await user.click(screen.getByRole('button', { name: 'Citation 1' }));
    expect(openSource).toHaveBeenCalledTimes(1);
    expect(screen.queryByTestId('link-confirm')).toBeNull();
    expect(bridge.app.OpenLink).not.toHaveBeenCalled();
  });
});
