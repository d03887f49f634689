import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { citation, installFakeBridge, removeFakeBridge, type FakeBridge } from '../testing/fixtures';
import { ChatPanel } from './ChatPanel';

describe('ChatPanel', () => {
  let bridge: FakeBridge;

  beforeEach(() => {
    bridge = installFakeBridge();
    bridge.app.Ask.mockResolvedValue('r1');
    bridge.app.Stop.mockResolvedValue(undefined);
  });

  afterEach(() => {
    cleanup();
    removeFakeBridge();
  });

  async function askAndStream() {
    render(<ChatPanel />);
    await waitFor(() => expect(bridge.listeners.get('answer:token')?.size).toBe(1));
    const input = screen.getByTestId('question-input');
    fireEvent.change(input, { target: { value: 'How do I install Footnote on Linux?' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    await waitFor(() => expect(bridge.app.Ask).toHaveBeenCalledWith('How do I install Footnote on Linux?'));
    await act(async () => {
      bridge.emit('answer:start', {
        request_id: 'r1',
        question: 'q',
        citations: [citation(1), citation(2, { score_norm: 0.5 })],
      });
      bridge.emit('answer:token', { request_id: 'r1', token: 'Download the AppImage ' });
      bridge.emit('answer:token', { request_id: 'someone-else', token: 'IGNORED ' });
      bridge.emit('answer:token', { request_id: 'r1', token: '[#1] (not [#9]).' });
    });
  }

  it('streams tokens for its own request only and shows the Stop button', async () => {
    await askAndStream();
    const body = screen.getByTestId('answer-body');
    expect(body.textContent?.trim()).toBe('Download the AppImage 1 (not [#9]).');
    expect(screen.getByTestId('stop-button')).toBeTruthy();

    fireEvent.keyDown(window, { key: 'Escape' });
    await waitFor(() => expect(bridge.app.Stop).toHaveBeenCalledWith('r1'));
  });

  it('shows the citation tooltip on hover and on keyboard focus, and hides it on Escape', async () => {
    await askAndStream();
    await act(async () => {
      bridge.emit('answer:done', {
        request_id: 'r1',
        answer: {
          request_id: 'r1',
          question: 'q',
          answer: 'Download the AppImage [#1].',
          grounded: true,
          refusal_reason: null,
          citations: null,
          model: 'llama3.2',
          embed_model: 'minilm',
          stopped: false,
          duration_ms: 2300,
        },
      });
    });
    expect(screen.getByTestId('turn').dataset.phase).toBe('done');
    expect(screen.getByText('Grounded')).toBeTruthy();

    const chip = screen.getByRole('button', { name: 'Citation 1' });
    fireEvent.mouseOver(chip);
    const tip = await screen.findByRole('tooltip');
    expect(tip.id).toBe(chip.getAttribute('aria-describedby'));
    expect(tip.textContent).toContain('Install guide 1');
    expect(tip.textContent).toContain('docs/install-1.md');
    expect(tip.textContent).toContain('install-linux-1');
    expect(tip.textContent).toContain('snip-1');
    expect(tip.textContent).toContain('0.87');
    expect(tip.textContent).toContain('10–130 char');
    expect(tip.textContent).toContain('Download the AppImage and mark it executable');

    fireEvent.mouseOut(chip);
    expect(screen.queryByRole('tooltip')).toBeNull();

    act(() => chip.focus());
    expect((await screen.findByRole('tooltip')).textContent).toContain('install-linux-1');
    fireEvent.keyDown(document, { key: 'Escape' });
    expect(screen.queryByRole('tooltip')).toBeNull();
  });

  it('shows a failing Ask as an error', async () => {
    bridge.app.Ask.mockRejectedValue('No documents are indexed yet; index a folder first.');
    render(<ChatPanel />);
    const input = screen.getByTestId('question-input');
    fireEvent.change(input, { target: { value: 'anything' } });
    fireEvent.click(screen.getByTestId('ask-button'));
    expect((await screen.findByTestId('answer-error')).textContent).toBe(
      'No documents are indexed yet; index a folder first.',
    );
  });

  it('keeps showing answer:error when an answer:done for the same request follows', async () => {
    await askAndStream();
    await act(async () => {
      bridge.emit('answer:error', { request_id: 'r1', error: 'Ollama stopped responding; restart it and ask again.' });
      bridge.emit('answer:done', {
        request_id: 'r1',
        answer: {
          request_id: 'r1',
          question: 'q',
          answer: 'A different final answer [#2].',
          grounded: true,
          refusal_reason: null,
          citations: null,
          model: 'llama3.2',
          embed_model: 'minilm',
          stopped: false,
          duration_ms: 100,
        },
      });
    });
    expect(screen.getByTestId('turn').dataset.phase).toBe('error');
    expect(screen.getByTestId('answer-error').textContent).toBe('Ollama stopped responding; restart it and ask again.');
    expect(screen.getByTestId('answer-body').textContent).not.toContain('different final answer');
    expect(screen.queryByText('Grounded')).toBeNull();
    expect(screen.getByTestId('ask-button')).toBeTruthy();
  });
});
