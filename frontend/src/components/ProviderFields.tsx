import { useEffect, useState, type ReactNode } from 'react';
import { api, errorMessage, onEvent } from '../api';
import { formatBytes } from '../format';
import type { ModelInfo, PullProgressEvent, UISettings } from '../types';

interface Props {
  form: UISettings;
  set: <K extends keyof UISettings>(key: K, value: UISettings[K]) => void;
  envNote: (key: string) => ReactNode;
}

// Ollama lists "name:latest" for a model asked for as "name".
const sameModel = (a: string, b: string) => a === b || a.replace(/:latest$/, '') === b.replace(/:latest$/, '');

/** Which server answers (Ollama or an OpenAI-compatible one), its address, the model, and pulling a model into Ollama. */
export function ProviderFields({ form, set, envNote }: Props) {
  const [models, setModels] = useState<ModelInfo[]>([]);
  const [modelsError, setModelsError] = useState<string | null>(null);
  // Whether the server's list has come back: until then the configured model
  // is shown as it is, not as "not installed".
  const [listed, setListed] = useState(false);
  const [pullName, setPullName] = useState('');
  const [pull, setPull] = useState<PullProgressEvent | null>(null);
  const [pulling, setPulling] = useState(false);
  const ollama = form.provider !== 'openai';

  const loadModels = async () => {
    setModelsError(null);
    try {
      setModels(await api.models());
      setListed(true);
    } catch (err) {
      setModels([]);
      setModelsError(errorMessage(err));
    }
  };
  useEffect(() => void loadModels(), []);
  useEffect(() => onEvent('model:pull', setPull), []);

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

  const selected = models.find((m) => sameModel(m.name, form.llm_model))?.name ?? form.llm_model;
  const currentMissing = form.llm_model && !models.some((m) => sameModel(m.name, form.llm_model));
  return (
    <fieldset>
      <legend>Answering</legend>
      <label htmlFor="set-provider">Model server</label>
      <select
        id="set-provider"
        data-testid="provider-picker"
        value={ollama ? 'ollama' : 'openai'}
        onChange={(e) => set('provider', e.target.value)}
      >
        <option value="ollama">Ollama</option>
        <option value="openai">OpenAI-compatible (LM Studio, llama.cpp, vLLM)</option>
      </select>
      {envNote('provider')}
      {ollama ? (
        <>
          <label htmlFor="set-host">Ollama host</label>
          <input
            id="set-host"
            type="text"
            value={form.ollama_host}
            placeholder="127.0.0.1:11434"
            spellCheck={false}
            onChange={(e) => set('ollama_host', e.target.value)}
          />
          {envNote('ollama_host')}
        </>
      ) : (
        <>
          <label htmlFor="set-base-url">Server base URL</label>
          <input
            id="set-base-url"
            data-testid="base-url-input"
            type="text"
            value={form.openai_base_url}
            placeholder="http://127.0.0.1:1234/v1"
            spellCheck={false}
            onChange={(e) => set('openai_base_url', e.target.value)}
          />
          {envNote('openai_base_url')}
        </>
      )}
      <span className="field-note">The server settings apply after a restart.</span>

      <label htmlFor="set-model">Model</label>
      {ollama ? (
        <div className="inline">
          <select id="set-model" data-testid="model-picker" value={selected} onChange={(e) => set('llm_model', e.target.value)}>
            {currentMissing && (
              <option value={form.llm_model} data-testid="model-unlisted">
                {form.llm_model}
                {listed ? ' (not installed)' : ''}
              </option>
            )}
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
      ) : (
        <input
          id="set-model"
          data-testid="model-input"
          type="text"
          value={form.llm_model}
          spellCheck={false}
          onChange={(e) => set('llm_model', e.target.value)}
        />
      )}
      {ollama && modelsError && <span className="field-error">{modelsError}</span>}
      {envNote('llm_model')}

      <label htmlFor="set-answer-length">Longest answer (tokens)</label>
      <input
        id="set-answer-length"
        data-testid="answer-length-input"
        type="number"
        min={16}
        max={131072}
        value={form.max_answer_tokens}
        onChange={(e) => set('max_answer_tokens', Number(e.target.value))}
      />
      <span className="field-note">The model is asked to stop here; a longer answer is cut off and marked incomplete.</span>
      {envNote('max_answer_tokens')}

      {ollama && (
        <>
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
        </>
      )}
    </fieldset>
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
