import { useEffect, useState, type FormEvent } from 'react';
import { api, errorMessage, onEvent } from '../api';
import { formatBytes } from '../format';
import { applyTheme, loadTheme, type Theme } from '../theme';
import type { ModelInfo, PullProgressEvent, UISettings } from '../types';

interface Props {
  onClose: () => void;
  /** Called after a successful save so the header can refresh. */
  onSaved: () => void;
}

const RESTART_LABELS: Record<string, string> = {
  ollama_host: 'the Ollama host',
  embed_model_dir: 'the embedding model folder',
};

/** Ollama host and model, retrieval knobs and theme. */
export function SettingsPanel({ onClose, onSaved }: Props) {
  const [form, setForm] = useState<UISettings | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [models, setModels] = useState<ModelInfo[]>([]);
  const [modelsError, setModelsError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const [theme, setTheme] = useState<Theme>(loadTheme);
  const [pullName, setPullName] = useState('');
  const [pull, setPull] = useState<PullProgressEvent | null>(null);
  const [pulling, setPulling] = useState(false);

  const loadModels = async () => {
    setModelsError(null);
    try {
      setModels(await api.models());
    } catch (err) {
      setModels([]);
      setModelsError(errorMessage(err));
    }
  };

  useEffect(() => {
    api.settings().then(setForm, (err: unknown) => setLoadError(errorMessage(err)));
    void loadModels();
  }, []);

  useEffect(() => onEvent('model:pull', setPull), []);

  const set = <K extends keyof UISettings>(key: K, value: UISettings[K]) =>
    setForm((f) => (f ? { ...f, [key]: value } : f));

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!form) return;
    setSaving(true);
    setResult(null);
    try {
      const res = await api.saveSettings(form);
      setForm(res.settings);
      const restart = (res.restart_required ?? []).map((k) => RESTART_LABELS[k] ?? k);
      setResult({
        ok: true,
        text: restart.length
          ? `Saved. Restart Footnote to use ${restart.join(' and ')}; the other settings apply to the next question.`
          : 'Saved. The changes apply to the next question.',
      });
      onSaved();
    } catch (err) {
      setResult({ ok: false, text: errorMessage(err) });
    } finally {
      setSaving(false);
    }
  };

  const startPull = async () => {
    const name = pullName.trim();
    if (!name) return;
    setPulling(true);
    setPull({ model: name, status: 'starting', completed: 0, total: 0, done: false });
    try {
      await api.pullModel(name);
      await loadModels();
      set('llm_model', name);
    } catch (err) {
      setPull({ model: name, status: 'failed', completed: 0, total: 0, done: true, error: errorMessage(err) });
    } finally {
      setPulling(false);
    }
  };

  const overridden = new Set(form?.overridden ?? []);
  const envNote = (key: string) =>
    overridden.has(key) ? <span className="field-note">Set by an environment variable, which wins over this value.</span> : null;
  // Ollama lists "name:latest" for a model asked for as "name".
  const sameModel = (a: string, b: string) => a === b || a.replace(/:latest$/, '') === b.replace(/:latest$/, '');
  const selected = form ? (models.find((m) => sameModel(m.name, form.llm_model))?.name ?? form.llm_model) : '';
  const currentMissing = form && form.llm_model && !models.some((m) => sameModel(m.name, form.llm_model));

  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        className="dialog settings"
        role="dialog"
        aria-modal="true"
        aria-label="Settings"
        data-testid="settings-panel"
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            onClose();
          }
        }}
      >
        <header className="dialog-head">
          <h2>Settings</h2>
          <button type="button" onClick={onClose} aria-label="Close settings" data-testid="settings-close">
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
            <fieldset>
              <legend>Answering (Ollama)</legend>
              <label htmlFor="set-host">Ollama host</label>
              <input
                id="set-host"
                type="text"
                value={form.ollama_host}
                placeholder="127.0.0.1:11434"
                spellCheck={false}
                onChange={(e) => set('ollama_host', e.target.value)}
              />
              <span className="field-note">Applies after a restart.</span>
              {envNote('ollama_host')}

              <label htmlFor="set-model">Model</label>
              <div className="inline">
                <select
                  id="set-model"
                  data-testid="model-picker"
                  value={selected}
                  onChange={(e) => set('llm_model', e.target.value)}
                >
                  {currentMissing && <option value={form.llm_model}>{form.llm_model} (not installed)</option>}
                  {models.map((m) => (
                    <option key={m.name} value={m.name}>
                      {m.name}
                      {m.parameter_size ? ` · ${m.parameter_size}` : ''}
                      {m.size ? ` · ${formatBytes(m.size)}` : ''}
                    </option>
                  ))}
                </select>
                <button type="button" onClick={() => void loadModels()}>
                  Refresh
                </button>
              </div>
              {modelsError && <span className="field-error">{modelsError}</span>}
              {envNote('llm_model')}

              <label htmlFor="set-pull">Pull a model</label>
              <div className="inline">
                <input
                  id="set-pull"
                  type="text"
                  value={pullName}
                  placeholder="e.g. llama3.2:3b"
                  spellCheck={false}
                  onChange={(e) => setPullName(e.target.value)}
                  data-testid="pull-input"
                />
                <button type="button" onClick={() => void startPull()} disabled={pulling || !pullName.trim()} data-testid="pull-button">
                  {pulling ? 'Pulling…' : 'Pull'}
                </button>
              </div>
              {pull && <PullStatus progress={pull} />}
            </fieldset>

            <fieldset>
              <legend>Retrieval</legend>
              <label htmlFor="set-gate">Score gate (0–1)</label>
              <input
                id="set-gate"
                type="number"
                min={0}
                max={1}
                step={0.05}
                value={form.score_gate}
                data-testid="gate-input"
                onChange={(e) => set('score_gate', Number(e.target.value))}
              />
              <span className="field-note">Below this best score Footnote refuses instead of asking the model.</span>
              <label htmlFor="set-k">Passages per answer (k)</label>
              <input id="set-k" type="number" min={1} max={50} value={form.evidence_k} onChange={(e) => set('evidence_k', Number(e.target.value))} />
              <label htmlFor="set-topk">Candidates per retriever</label>
              <input id="set-topk" type="number" min={1} max={1000} value={form.top_k} onChange={(e) => set('top_k', Number(e.target.value))} />
              {envNote('top_k')}
            </fieldset>

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
              <legend>Appearance</legend>
              <label htmlFor="set-theme">Theme</label>
              <select
                id="set-theme"
                data-testid="theme-picker"
                value={theme}
                onChange={(e) => {
                  const t = e.target.value as Theme;
                  setTheme(t);
                  applyTheme(t);
                }}
              >
                <option value="system">Follow the system</option>
                <option value="light">Light</option>
                <option value="dark">Dark</option>
              </select>
              <span className="field-note">Applies at once.</span>
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
              <button type="submit" className="primary" disabled={saving} data-testid="settings-save">
                {saving ? 'Saving…' : 'Save'}
              </button>
            </div>
          </form>
        )}
      </div>
    </div>
  );
}

function PullStatus({ progress }: { progress: PullProgressEvent }) {
  if (progress.error) {
    return (
      <span className="field-error" role="alert" data-testid="pull-status">
        {progress.error}
      </span>
    );
  }
  const { total, completed } = progress;
  return (
    <div className="download-progress" data-testid="pull-status">
      <progress max={total || 1} value={total ? completed : progress.done ? 1 : undefined} aria-label="Model pull progress" />
      <span className="progress-text">
        {progress.done && progress.status === 'success'
          ? `${progress.model} is ready`
          : `${progress.status}${total ? ` · ${formatBytes(completed)} / ${formatBytes(total)}` : ''}`}
      </span>
    </div>
  );
}
