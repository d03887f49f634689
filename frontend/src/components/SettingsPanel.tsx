import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { api, BackendError, errorMessage, REMOTE_UNCONFIRMED } from '../api';
import { applyTheme, type Theme } from '../theme';
import type { RetrievalMode, UISettings } from '../types';
import { ProviderFields } from './ProviderFields';
import { RemoteConfirm } from './RemoteConfirm';

interface Props {
  onClose: () => void;
  /** Called after a successful save so the header can refresh. */
  onSaved: () => void;
}

const RESTART_LABELS: Record<string, string> = {
  ollama_host: 'the Ollama host',
  embed_model_dir: 'the embedding model folder',
  provider: 'the model server',
  openai_base_url: 'the server URL',
};

/** Model server and model, retrieval knobs, the answer cache and the theme; saved in settings.json. */
export function SettingsPanel({ onClose, onSaved }: Props) {
  const [form, setForm] = useState<UISettings | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  // The model server on another machine the user is asked about before saving.
  const [remoteServer, setRemoteServer] = useState<string | null>(null);
  const saveButton = useRef<HTMLButtonElement>(null);
  // The theme previews at once; closing without saving goes back to the saved one.
  const savedTheme = useRef<Theme | null>(null);

  useEffect(() => {
    api.settings().then(
      (s) => {
        savedTheme.current = s.theme;
        setForm(s);
      },
      (err: unknown) => setLoadError(errorMessage(err)),
    );
  }, []);

  const set = <K extends keyof UISettings>(key: K, value: UISettings[K]) =>
    setForm((f) => (f ? { ...f, [key]: value } : f));

  const close = () => {
    if (savedTheme.current && form && form.theme !== savedTheme.current) applyTheme(savedTheme.current);
    onClose();
  };

  const submit = async (confirmRemote: boolean) => {
    if (!form) return;
    setSaving(true);
    setResult(null);
    try {
      const res = await api.saveSettings(confirmRemote ? { ...form, confirm_remote: true } : form);
      setForm(res.settings);
      savedTheme.current = res.settings.theme;
      applyTheme(res.settings.theme);
      const restart = (res.restart_required ?? []).map((k) => RESTART_LABELS[k] ?? k);
      setResult({
        ok: true,
        text: restart.length
          ? `Saved. Restart Footnote to use ${restart.join(' and ')}; the other settings apply to the next question.`
          : 'Saved. The changes apply to the next question.',
      });
      onSaved();
    } catch (err) {
      if (err instanceof BackendError && err.code === REMOTE_UNCONFIRMED && err.server) {
        setRemoteServer(err.server); // saved only once the user confirms
      } else {
        setResult({ ok: false, text: errorMessage(err) });
      }
    } finally {
      setSaving(false);
    }
  };
  const save = (e: FormEvent) => {
    e.preventDefault();
    void submit(false);
  };
  const answerRemote = (confirmed: boolean) => {
    setRemoteServer(null);
    saveButton.current?.focus();
    if (confirmed) void submit(true);
    else setResult({ ok: false, text: 'Not saved: confirm that server, or choose one on this computer.' });
  };

  const overridden = new Set(form?.overridden ?? []);
  const envNote = (key: string): ReactNode =>
    overridden.has(key) ? <span className="field-note">Set by an environment variable, which wins over this value.</span> : null;

  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <div
        className="dialog settings"
        role="dialog"
        aria-modal="true"
        aria-label="Settings"
        data-testid="settings-panel"
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            close();
          }
        }}
      >
        <header className="dialog-head">
          <h2>Settings</h2>
          <button type="button" onClick={close} aria-label="Close settings" data-testid="settings-close">
            ✕
          </button>
        </header>
        {loadError && (
          <p className="answer-error" role="alert">
            {loadError}
          </p>
        )}
        {form && (
          <form className="settings-form" onSubmit={save}>
            <ProviderFields form={form} set={set} envNote={envNote} />
            <RetrievalFields form={form} set={set} envNote={envNote} />

            <fieldset>
              <legend>Embedding model</legend>
              <label htmlFor="set-embed">Model folder</label>
              <input
                id="set-embed"
                type="text"
                value={form.embed_model_dir}
                spellCheck={false}
                onChange={(e) => set('embed_model_dir', e.target.value)}
              />
              <span className="field-note">Applies after a restart; a different model re-indexes your documents.</span>
              {envNote('embed_model_dir')}
            </fieldset>

            <fieldset>
              <legend>Library</legend>
              <label className="check">
                <input
                  type="checkbox"
                  checked={form.follow_outside_links ?? false}
                  data-testid="outside-links-toggle"
                  onChange={(e) => set('follow_outside_links', e.target.checked)}
                />
                Index what links inside a folder point to outside it
              </label>
              <span className="field-note">Off: such links are skipped and listed with the reason. Changing it re-scans your folders.</span>
            </fieldset>

            <fieldset>
              <legend>Appearance</legend>
              <label htmlFor="set-theme">Theme</label>
              <select
                id="set-theme"
                data-testid="theme-picker"
                value={form.theme}
                onChange={(e) => {
                  const t = e.target.value as Theme;
                  set('theme', t);
                  applyTheme(t);
                }}
              >
                <option value="system">Follow the system</option>
                <option value="light">Light</option>
                <option value="dark">Dark</option>
              </select>
            </fieldset>

            <fieldset>
              <legend>About</legend>
              <p className="muted" data-testid="settings-version">
                Footnote {form.version}
              </p>
            </fieldset>

            <div className="dialog-foot">
              {result && (
                <span className={result.ok ? 'save-ok' : 'field-error'} role={result.ok ? 'status' : 'alert'} data-testid="settings-result">
                  {result.text}
                </span>
              )}
              <span className="muted settings-path" title={form.settings_path}>
                {form.settings_path}
              </span>
              <button type="submit" className="primary" disabled={saving} data-testid="settings-save" ref={saveButton}>
                {saving ? 'Saving…' : 'Save'}
              </button>
            </div>
          </form>
        )}
        {remoteServer !== null && (
          <RemoteConfirm server={remoteServer} onConfirm={() => answerRemote(true)} onCancel={() => answerRemote(false)} />
        )}
      </div>
    </div>
  );
}

interface FieldProps {
  form: UISettings;
  set: <K extends keyof UISettings>(key: K, value: UISettings[K]) => void;
  envNote: (key: string) => ReactNode;
}

/** Retrieval mode, k, the score gate, the answer cache and the cross-section policy. */
function RetrievalFields({ form, set, envNote }: FieldProps) {
  return (
    <fieldset>
      <legend>Retrieval</legend>
      <label htmlFor="set-mode">Search mode</label>
      <select
        id="set-mode"
        data-testid="mode-picker"
        value={form.retrieval_mode}
        onChange={(e) => set('retrieval_mode', e.target.value as RetrievalMode)}
      >
        <option value="hybrid">Hybrid (keywords + meaning)</option>
        <option value="lexical">Keywords only</option>
        <option value="vector">Meaning only</option>
      </select>
      <label htmlFor="set-gate">Word match gate (0–1)</label>
      <input
        id="set-gate"
        type="number"
        min={0}
        max={1}
        step={0.05}
        value={form.word_match_gate}
        data-testid="gate-input"
        onChange={(e) => set('word_match_gate', Number(e.target.value))}
      />
      <span className="field-note">
        When the best passage holds less than this share of the question&apos;s key words (rarer words count more),
        Footnote refuses instead of asking the model. 0 turns the gate off.
      </span>
      <label htmlFor="set-k">Passages per answer (k)</label>
      <input
        id="set-k"
        type="number"
        min={1}
        max={50}
        value={form.evidence_k}
        data-testid="k-input"
        onChange={(e) => set('evidence_k', Number(e.target.value))}
      />
      <label htmlFor="set-topk">Candidates per retriever</label>
      <input id="set-topk" type="number" min={1} max={1000} value={form.top_k} onChange={(e) => set('top_k', Number(e.target.value))} />
      {envNote('top_k')}
      <label className="check">
        <input
          type="checkbox"
          checked={form.answer_cache}
          data-testid="cache-toggle"
          onChange={(e) => set('answer_cache', e.target.checked)}
        />
        Reuse answers to similar questions (always marked as cached)
      </label>
      <label htmlFor="set-cross">Citations spanning sections</label>
      <select
        id="set-cross"
        value={form.cross_section}
        onChange={(e) => set('cross_section', e.target.value === 'forbid' ? 'forbid' : 'allow')}
      >
        <option value="allow">Allow, with a warning</option>
        <option value="forbid">Forbid (the answer is not shown as grounded)</option>
      </select>
    </fieldset>
  );
}
