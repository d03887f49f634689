import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerFixture, installFakeBridge, removeFakeBridge, type FakeBridge } from '../testing/fixtures';
import type { Thread } from '../types';
import { ChatPanel } from './ChatPanel';

const office: Thread = { id: 'th_1', title: 'Main office', created_at: '', updated_at: '', turns: 2 };

describe('threads', () => {
  let bridge: FakeBridge;
  beforeEach(() => {
    bridge = installFakeBridge();
    bridge.app.Threads.mockResolvedValue([office]);
    bridge.app.ThreadAnswers.mockResolvedValue([
      { thread: office, turn: { seq: 1, answer_id: 'a1', question: 'When was the main office opened?', standalone: 'When was the main office opened?' }, answer: answerFixture({ question: 'When was the main office opened?', answer: 'In 1998.' }) },
      {
        thread: office,
        turn: { seq: 2, answer_id: 'a2', question: 'And who designed it?', standalone: 'Who designed the main office?' },
        answer: answerFixture({
          question: 'And who designed it?',
          answer: 'Mara Lind.',
          followup: { asked: 'And who designed it?', standalone: 'Who designed the main office?', rewrite_source: 'model', turns_used: [1], turns_dropped: 0, history_tokens: 9 },
        }),
      },
    ]);
    bridge.app.AskInThread.mockResolvedValue('r9');
    bridge.app.Ask.mockResolvedValue('r0');
  });
  afterEach(() => {
    cleanup();
    removeFakeBridge();
  });

  it('opens a thread with its turns and asks the next question in it', async () => {
    render(<ChatPanel />);
    fireEvent.click(screen.getByTestId('threads-button'));
    fireEvent.click(await screen.findByText(/Main office/));
    await waitFor(() => expect(screen.getAllByTestId('turn')).toHaveLength(2));
    expect(bridge.app.ThreadAnswers).toHaveBeenCalledWith('th_1');
    expect(screen.getByTestId('searched-for').textContent).toBe('Searched for: Who designed the main office? Edit');
    expect(screen.getByTestId('active-thread').textContent).toContain('Main office');
    const input = screen.getByTestId('question-input');
    fireEvent.change(input, { target: { value: 'Where is it?' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    await waitFor(() => expect(bridge.app.AskInThread).toHaveBeenCalledWith('th_1', 'Where is it?', ''));
    expect(bridge.app.Ask).not.toHaveBeenCalled();
  });

  it('asks a follow-up again with the edited search', async () => {
    render(<ChatPanel />);
    fireEvent.click(screen.getByTestId('threads-button'));
    fireEvent.click(await screen.findByText(/Main office/));
    fireEvent.click(await screen.findByTestId('searched-for-edit'));
    fireEvent.change(screen.getByTestId('searched-for-input'), { target: { value: 'main office architect' } });
    fireEvent.click(screen.getByTestId('searched-for-ask'));
    await waitFor(() => expect(bridge.app.AskInThread).toHaveBeenCalledWith('th_1', 'And who designed it?', 'main office architect'));
  });

  it('names a new thread after its first question in the toolbar', async () => {
    const fresh: Thread = { id: 'th_2', title: '', created_at: '', updated_at: '', turns: 0 };
    bridge.app.NewThread.mockResolvedValue(fresh);
    render(<ChatPanel />);
    fireEvent.click(screen.getByTestId('threads-button'));
    fireEvent.click(await screen.findByTestId('thread-new'));
    await waitFor(() => expect(screen.getByTestId('active-thread').textContent).toContain('Thread: new'));
    fireEvent.change(screen.getByTestId('question-input'), { target: { value: 'When was the main office opened?' } });
    fireEvent.keyDown(screen.getByTestId('question-input'), { key: 'Enter' });
    await waitFor(() => expect(bridge.app.AskInThread).toHaveBeenCalledWith('th_2', 'When was the main office opened?', ''));
    await waitFor(() => expect(screen.getByTestId('active-thread').textContent).toContain('Thread: When was the main office opened?'));
  });

  it('creates, renames and deletes threads', async () => {
    bridge.app.NewThread.mockResolvedValue({ id: 'th_2', title: '', created_at: '', updated_at: '', turns: 0 });
    render(<ChatPanel />);
    fireEvent.click(screen.getByTestId('threads-button'));
    fireEvent.click(await screen.findByTestId('thread-rename'));
    fireEvent.change(screen.getByTestId('thread-title-input'), { target: { value: 'Office history' } });
    fireEvent.submit(screen.getByTestId('thread-title-input'));
    await waitFor(() => expect(bridge.app.RenameThread).toHaveBeenCalledWith('th_1', 'Office history'));
    fireEvent.click(screen.getByTestId('thread-delete'));
    await waitFor(() => expect(bridge.app.DeleteThread).toHaveBeenCalledWith('th_1'));
    fireEvent.click(screen.getByTestId('thread-new'));
    await waitFor(() => expect(bridge.app.NewThread).toHaveBeenCalled());
    await waitFor(() => expect(screen.queryByTestId('thread-list')).toBeNull());
    const input = screen.getByTestId('question-input');
    fireEvent.change(input, { target: { value: 'First question?' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    await waitFor(() => expect(bridge.app.AskInThread).toHaveBeenCalledWith('th_2', 'First question?', ''));
  });
});
