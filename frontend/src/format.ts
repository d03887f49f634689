// Small display formatters shared by components.

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

export function formatScore(score: number): string {
  return Number.isFinite(score) ? score.toFixed(2) : '—';
}
