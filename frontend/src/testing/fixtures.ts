// Test-only helpers: sample data and a fake Wails bridge on window.
import { vi } from 'vitest';
import type { AppBindings, WailsRuntime } from '../api';
import type { Citation } from '../types';

export function citation(n: number, overrides: Partial<Citation> = {}): Citation {
  return {
    n,
    doc_id: `doc-${n}`,
    section_id: `install-linux-${n}`,
    snippet_id: `snip-${n}`,
    source_url: '',
    title: `Install guide ${n}`,
    path: `docs/install-${n}.md`,
    offsets: { start: 10 * n, end: 10 * n + 120, unit: 'char' },
    tokens: 42,
    score_norm: 0.87,
    text: `Download the AppImage and mark it executable (snippet ${n}).`,
    ...overrides,
  };
}

export interface FakeBridge {
  app: { [K in keyof AppBindings]: ReturnType<typeof vi.fn> };
  emit(name: string, payload: unknown): void;
  listeners: Map<string, Set<(...data: unknown[]) => void>>;
}

/** Installs window.go / window.runtime fakes; returns handles to drive them. */
export function installFakeBridge(): FakeBridge {
  const listeners = new Map<string, Set<(...data: unknown[]) => void>>();
  const app = {
    Status: vi.fn(),
    Ingest: vi.fn(),
    PickFolder: vi.fn(),
    Documents: vi.fn(),
    Ask: vi.fn(),
    AskFresh: vi.fn(),
    Stop: vi.fn(),
    Search: vi.fn(),
    DownloadModel: vi.fn(),
    OpenDocument: vi.fn(),
    OpenOriginal: vi.fn(),
    OpenLink: vi.fn(),
    Settings: vi.fn(),
    SaveSettings: vi.fn(),
    Models: vi.fn(),
    PullModel: vi.fn(),
    History: vi.fn(),
    AddPaths: vi.fn(),
    PickFiles: vi.fn(),
    Collections: vi.fn(),
    CollectionFiles: vi.fn(),
    Rescan: vi.fn(),
    TreatAsDocument: vi.fn(),
    RemoveCollection: vi.fn(),
    WatchState: vi.fn(),
  };
  const runtime: WailsRuntime = {
    EventsOn(name, callback) {
      const set = listeners.get(name) ?? new Set();
      set.add(callback);
      listeners.set(name, set);
      return () => set.delete(callback);
    },
    EventsOff(name) {
      listeners.delete(name);
    },
  };
  window.go = { app: { App: app as unknown as AppBindings } };
  window.runtime = runtime;
  return {
    app,
    listeners,
    emit(name, payload) {
      for (const cb of listeners.get(name) ?? []) cb(payload);
    },
  };
}

export function removeFakeBridge(): void {
  delete window.go;
  delete window.runtime;
}
