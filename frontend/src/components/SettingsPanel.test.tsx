import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { installFakeBridge, removeFakeBridge, type FakeBridge } from '../testing/fixtures';
import type { UISettings } from '../types';
import { SettingsPanel } from './SettingsPanel';

const settings: UISettings = {
  ollama_host: 'http://127.0.0.1:11434',
  llm_model: 'llama3.2',
  embed_model_dir: '/models/minilm',
  word_match_gate: 0.1,
  evidence_k: 6,
  top_k: 20,
  provider: 'ollama',
  openai_base_url: 'http://127.0.0.1:1234/v1',
  retrieval_mode: 'hybrid',
  answer_cache: true,
  cross_section: 'allow',
  theme: 'system',
  max_answer_tokens: 1024,
  settings_path: '/data/settings.json',
  version: '0.1.0-dev.12+gabc1234',
  overridden: ['llm_model'],
};

describe('SettingsPanel', () => {
  let bridge: FakeBridge;
  beforeEach(() => {
    bridge = installFakeBridge();
    bridge.app.Settings.mockResolvedValue(settings);
    bridge.app.Models.mockResolvedValue([
      { name: 'llama3.2:latest', size: 2_000_000_000, parameter_size: '3.2B', modified_at: '' },
      { name: 'qwen2.5:7b', size: 0, parameter_size: '', modified_at: '' },
    ]);
  });
  afterEach(() => {
    cleanup();
    removeFakeBridge();
  });

  it("lists the server's models, matches name to name:latest, and saves with a restart note", async () => {
    bridge.app.SaveSettings.mockImplementation(async (s: UISettings) => ({
      settings: s,
      restart_required: ['ollama_host'],
    }));
    const onSaved = vi.fn();
    render(<SettingsPanel onClose={() => {}} onSaved={onSaved} />);
    const picker = await screen.findByTestId<HTMLSelectElement>('model-picker');
    await waitFor(() => expect(picker.options).toHaveLength(2));
    expect(picker.value).toBe('llama3.2:latest');
    expect(screen.getByText(/Set by an environment variable/)).toBeTruthy();
    expect(screen.getByTestId('settings-version').textContent).toBe('Footnote 0.1.0-dev.12+gabc1234');

    fireEvent.change(picker, { target: { value: 'qwen2.5:7b' } });
    fireEvent.change(screen.getByTestId('gate-input'), { target: { value: '0.8' } });
    fireEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() => expect(onSaved).toHaveBeenCalled());
    expect(bridge.app.SaveSettings).toHaveBeenCalledWith({ ...settings, llm_model: 'qwen2.5:7b', word_match_gate: 0.8 });
    expect(screen.getByTestId('settings-result').textContent).toMatch(/Restart Footnote to use the Ollama host/);
  });

  it('shows a rejected save as an error and a pull with progress', async () => {
    bridge.app.SaveSettings.mockRejectedValue('setting word_match_gate=2 must be within 0..1');
    let finishPull: () => void = () => {};
    bridge.app.PullModel.mockImplementation(() => new Promise<void>((resolve) => (finishPull = resolve)));
    render(<SettingsPanel onClose={() => {}} onSaved={() => {}} />);
    await screen.findByTestId('model-picker');
    fireEvent.click(screen.getByTestId('settings-save'));
    expect((await screen.findByRole('alert')).textContent).toMatch(/word_match_gate/);

    fireEvent.change(screen.getByTestId('pull-input'), { target: { value: 'phi4' } });
    fireEvent.click(screen.getByTestId('pull-button'));
    await waitFor(() => expect(bridge.app.PullModel).toHaveBeenCalledWith('phi4'));
    bridge.emit('model:pull', { model: 'phi4', status: 'downloading', completed: 500_000, total: 1_000_000, done: false });
    await waitFor(() => expect(screen.getByTestId('pull-status').textContent).toMatch(/500 kB \/ 1.0 MB/));
    finishPull();
    await waitFor(() => expect(bridge.app.Models).toHaveBeenCalledTimes(2));
  });

  it('saves provider, mode, cache and theme, and shows the base URL for an OpenAI-compatible server', async () => {
    bridge.app.SaveSettings.mockImplementation(async (s: UISettings) => ({ settings: s, restart_required: ['provider'] }));
    render(<SettingsPanel onClose={() => {}} onSaved={() => {}} />);
    const provider = await screen.findByTestId('provider-picker');
    expect(screen.queryByTestId('base-url-input')).toBeNull();
    fireEvent.change(provider, { target: { value: 'openai' } });
    expect((screen.getByTestId('base-url-input') as HTMLInputElement).value).toBe('http://127.0.0.1:1234/v1');
    expect(screen.queryByTestId('pull-input')).toBeNull();
    fireEvent.change(screen.getByTestId('mode-picker'), { target: { value: 'lexical' } });
    fireEvent.click(screen.getByTestId('cache-toggle'));
    fireEvent.change(screen.getByTestId('theme-picker'), { target: { value: 'dark' } });
    expect(document.documentElement.dataset.theme).toBe('dark');
    fireEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() =>
      expect(bridge.app.SaveSettings).toHaveBeenCalledWith({
        ...settings,
        provider: 'openai',
        retrieval_mode: 'lexical',
        answer_cache: false,
        theme: 'dark',
      }),
    );
    expect((await screen.findByTestId('settings-result')).textContent).toMatch(/Restart Footnote to use the model server/);
  });

  it('saves the choice to index links leading out of a folder', async () => {
    bridge.app.SaveSettings.mockImplementation(async (s: UISettings) => ({ settings: s, restart_required: [] }));
    render(<SettingsPanel onClose={() => {}} onSaved={() => {}} />);
    const toggle = await screen.findByTestId<HTMLInputElement>('outside-links-toggle');
    expect(toggle.checked).toBe(false);
    fireEvent.click(toggle);
    fireEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() => expect(bridge.app.SaveSettings).toHaveBeenCalledWith({ ...settings, follow_outside_links: true }));
  });

  it('asks before saving a model server on another machine, by keyboard, and saves only after confirming', async () => {
    // What the Wails error formatter sends for app.UIError.
    bridge.app.SaveSettings.mockImplementation(async (s: UISettings) => {
      if (!s.confirm_remote) {
        throw { message: 'the model server is not on this machine', code: 'remote_server_unconfirmed', server: 'http://gpu-box:11434' };
      }
      return { settings: { ...s, confirm_remote: undefined }, restart_required: ['ollama_host'] };
    });
    const onClose = vi.fn();
    const onSaved = vi.fn();
    render(<SettingsPanel onClose={onClose} onSaved={onSaved} />);
    await screen.findByTestId('model-picker');
    fireEvent.change(screen.getByLabelText('Ollama host'), { target: { value: 'gpu-box:11434' } });
    fireEvent.click(screen.getByTestId('settings-save'));

    const dialog = await screen.findByRole('alertdialog');
    expect(dialog.textContent).toContain('http://gpu-box:11434');
    expect(dialog.textContent).toMatch(/passages from your documents/);
    expect(dialog.textContent).toMatch(/unencrypted/);
    // The dialog takes focus in an effect after it renders; under load that
    // can come a moment after findByRole resolves (seen once in CI).
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId('remote-cancel')));
    fireEvent.keyDown(document.activeElement as Element, { key: 'Tab' });
    expect(document.activeElement).toBe(screen.getByTestId('remote-confirm-button'));
    fireEvent.keyDown(document.activeElement as Element, { key: 'Tab' });
    expect(document.activeElement).toBe(screen.getByTestId('remote-cancel'));

    // Escape cancels the confirmation only: nothing saved, Settings stays open.
    fireEvent.keyDown(document.activeElement as Element, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(onClose).not.toHaveBeenCalled();
    expect(onSaved).not.toHaveBeenCalled();
    await waitFor(() => expect(screen.getByTestId('settings-result').textContent).toMatch(/Not saved/));
    expect(bridge.app.SaveSettings).toHaveBeenCalledTimes(1);

    fireEvent.click(screen.getByTestId('settings-save'));
    fireEvent.click(await screen.findByTestId('remote-confirm-button'));
    await waitFor(() => expect(onSaved).toHaveBeenCalled());
    expect(bridge.app.SaveSettings).toHaveBeenLastCalledWith({ ...settings, ollama_host: 'gpu-box:11434', confirm_remote: true });
    await waitFor(() => expect(screen.getByTestId('settings-result').textContent).toMatch(/Saved/));
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });

  it('saves the answer length', async () => {
    bridge.app.SaveSettings.mockImplementation(async (s: UISettings) => ({ settings: s, restart_required: [] }));
    render(<SettingsPanel onClose={() => {}} onSaved={() => {}} />);
    const input = await screen.findByTestId<HTMLInputElement>('answer-length-input');
    expect(input.value).toBe('1024');
    fireEvent.change(input, { target: { value: '300' } });
    fireEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() => expect(bridge.app.SaveSettings).toHaveBeenCalledWith({ ...settings, max_answer_tokens: 300 }));
  });

  it('puts the saved theme back when closed without saving', async () => {
    const onClose = vi.fn();
    render(<SettingsPanel onClose={onClose} onSaved={() => {}} />);
    fireEvent.change(await screen.findByTestId('theme-picker'), { target: { value: 'light' } });
    expect(document.documentElement.dataset.theme).toBe('light');
    fireEvent.click(screen.getByTestId('settings-close'));
    expect(document.documentElement.dataset.theme).toBe('system');
    expect(onClose).toHaveBeenCalled();
  });
  it('calls the configured model "not installed" only once the server has listed its models without it', async () => {
    let answer: (models: { name: string; size: number; parameter_size: string; modified_at: string }[]) => void = () => {};
    bridge.app.Models.mockImplementation(() => new Promise((resolve) => (answer = resolve)));
    render(<SettingsPanel onClose={() => {}} onSaved={() => {}} />);
    const picker = await screen.findByTestId<HTMLSelectElement>('model-picker');
    expect(picker.options).toHaveLength(1);
    expect(picker.options[0]?.textContent).toBe('llama3.2');
    answer([{ name: 'qwen2.5:7b', size: 0, parameter_size: '', modified_at: '' }]);
    await waitFor(() => expect(picker.options).toHaveLength(2));
    expect(picker.options[0]?.textContent).toBe('llama3.2 (not installed)');
  });
});
