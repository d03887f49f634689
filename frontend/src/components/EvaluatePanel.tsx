// The Evaluate view: runs a gold QA set through the answer pipeline (Go:
// App.Evaluate / App.EvaluateCollection, progress on eval:progress) and shows
// the metrics, the quality gates and one row per question.
import { useEffect, useState, type FormEvent } from 'react';
import { errorMessage, onEvent, type AppBindings } from '../api';
import type { EvalProgress, EvalReport, Metrics } from '../generated/models';

export type { EvalProgress, EvalReport };

type MetricKey = keyof Omit<Metrics, 'labels' | 'citation_recall' | 'citation_precision' | 'citation_answers'>;

const METRICS: [MetricKey, string][] = [
  ['precision', 'Precision'],
  ['over_refusal', 'Over-refusal'],
  ['under_refusal', 'Under-refusal'],
  ['citation_hit_rate', 'Citation hit rate'],
  ['compliance', 'Compliance'],
  ['containment', 'Claim containment'],
  ['word_containment', 'Word containment'],
  ['phrase_containment', 'Phrase containment'],
  ['non_corpus_citation_rate', 'Non-corpus citations'],
  ['recall_at_k', 'Recall@k'],
  ['mrr_at_10', 'MRR@10'],
  ['ndcg_at_10', 'nDCG@10'],
];

function bindings(): AppBindings | undefined {
  return window.go?.app?.App;
}

const NOT_CONNECTED = 'The Footnote backend is not connected; start the app to run an evaluation.';

interface Props {
  onClose: () => void;
}

export function EvaluatePanel({ onClose }: Props) {
  const [goldPath, setGoldPath] = useState('');
  const [collection, setCollection] = useState('');
  const [running, setRunning] = useState(false);
  const [progress, setProgress] = useState<EvalProgress | null>(null);
  const [report, setReport] = useState<EvalReport | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let cancelled = false;
    bindings()
      ?.DefaultGoldSet()
      .then((p) => {
        if (!cancelled && p) setGoldPath((cur) => cur || p);
      })
      .catch(() => {});
    return () => {
      cancelled = true;
    };
  }, []);

  useEffect(() => onEvent('eval:progress', setProgress), []);

  const run = async (e: FormEvent) => {
    e.preventDefault();
    const b = bindings();
    if (!b) {
      setError(NOT_CONNECTED);
      return;
    }
    setRunning(true);
    setError(null);
    setReport(null);
    setProgress(null);
    try {
      setReport(await b.EvaluateCollection(goldPath.trim(), collection.trim()));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setRunning(false);
    }
  };

  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && !running && onClose()}>
      <div
        className="dialog evaluate"
        role="dialog"
        aria-modal="true"
        aria-label="Evaluate"
        data-testid="evaluate-panel"
        onKeyDown={(e) => {
          if (e.key === 'Escape' && !running) {
            e.stopPropagation();
            onClose();
          }
        }}
      >
        <header className="dialog-head">
          <h2>Evaluate answers</h2>
          <button type="button" onClick={onClose} disabled={running} aria-label="Close evaluate" data-testid="evaluate-close">
            ✕
          </button>
        </header>
        <form className="settings-form" onSubmit={run}>
          <label htmlFor="eval-gold">Gold set (JSON)</label>
          <input
            id="eval-gold"
            type="text"
            value={goldPath}
            placeholder="path/to/gold.json"
            spellCheck={false}
            onChange={(e) => setGoldPath(e.target.value)}
            data-testid="eval-gold"
          />
          <label htmlFor="eval-collection">Collection (empty: whole library)</label>
          <input
            id="eval-collection"
            type="text"
            value={collection}
            spellCheck={false}
            onChange={(e) => setCollection(e.target.value)}
            data-testid="eval-collection"
          />
          <button type="submit" disabled={running || goldPath.trim() === ''} data-testid="eval-run">
            {running ? 'Running…' : 'Run'}
          </button>
        </form>
        {running && progress && (
          <div data-testid="eval-progress">
            <progress max={progress.total} value={progress.done} />
            <span>
              {' '}
              {progress.done} of {progress.total} questions ({progress.qid})
            </span>
          </div>
        )}
        {error && (
          <p className="answer-error" role="alert">
            {error}
          </p>
        )}
        {report && <ReportView report={report} />}
      </div>
    </div>
  );
}

function pct(v: number): string {
  return `${(v * 100).toFixed(1)}%`;
}

function pctOrNA(v: number | null): string {
  return v === null ? 'n/a' : pct(v);
}

/** Footnote's claim-level metrics, beside the conventional ones. */
const CITATION_METRICS: ['citation_recall' | 'citation_precision', string][] = [
  ['citation_recall', 'Citation recall (ALCE)'],
  ['citation_precision', 'Citation precision (ALCE)'],
];

function ReportView({ report }: { report: EvalReport }) {
  const gates = report.gates ?? [];
  const rows = report.rows ?? [];
  return (
    <div className="eval-report" data-testid="eval-report" style={{ overflow: 'auto', padding: '0 14px 14px' }}>
      <p data-testid="eval-verdict">
        <strong>{report.passed ? 'All quality gates passed.' : 'Some quality gates failed.'}</strong> {report.questions}{' '}
        questions ({report.answerable} answerable, {report.unanswerable} unanswerable), {report.answered} answered.
      </p>
      <table>
        <tbody>
          {METRICS.map(([key, label]) => (
            <tr key={key}>
              <th scope="row">{label}</th>
              <td data-testid={`metric-${key}`}>{pct(report[key])}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <table data-testid="eval-citation-quality">
        <caption>Claims checked against the passages they cite, over {report.citation_answers} answers</caption>
        <tbody>
          {CITATION_METRICS.map(([key, label]) => (
            <tr key={key}>
              <th scope="row">{label}</th>
              <td data-testid={`metric-${key}`}>{pctOrNA(report[key])}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <ul data-testid="eval-gates">
        {gates.map((g) => (
          <li key={g.metric} className={g.passed ? 'gate-pass' : 'gate-fail'}>
            {g.passed ? 'PASS' : 'FAIL'} {g.metric} {g.min ? '≥' : '≤'} {g.value.toFixed(2)} (got {g.actual.toFixed(3)})
          </li>
        ))}
      </ul>
      <table data-testid="eval-rows">
        <thead>
          <tr>
            <th>qid</th>
            <th>label</th>
            <th>question</th>
            <th>cited</th>
            <th>citation recall</th>
            <th>citation precision</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.qid}-${r.run}`}>
              <td>{r.qid}</td>
              <td>{r.label}</td>
              <td title={r.answer}>{r.question}</td>
              <td>{(r.cited ?? []).join(', ')}</td>
              <td>{pctOrNA(r.citation_recall)}</td>
              <td>{pctOrNA(r.citation_precision)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A small launcher for the Evaluate view, so App needs one line to host it. */
export function EvaluateLauncher() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className="small"
        onClick={() => setOpen(true)}
        data-testid="evaluate-button"
      >
        Evaluate
      </button>
      {open && <EvaluatePanel onClose={() => setOpen(false)} />}
    </>
  );
}
