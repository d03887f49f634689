// Typed access to the Wails bindings (window.go.app.App) and runtime events
// (window.runtime). The globals are declared here rather than taken from
// generated wailsjs files so the UI builds without the Go toolchain.
import { webLink } from './links';
import type * as gen from './generated/models';
import type {
  Answer,
  CollectionInfo,
  FileStatus,
  DocumentInfo,
  EventMap,
  Hit,
  ModelInfo,
  SaveResult,
  Thread,
  ThreadAnswer,
  UISettings,
} from './types';

/**
 * Methods bound from the Go struct app.App; each returns a Promise. Generated
 * from Go (generated/models.ts), with the settings narrowed as in types.ts.
 */
export interface AppBindings extends Omit<gen.AppBindings, 'Settings' | 'SaveSettings'> {
  Settings(): Promise<UISettings>;
  SaveSettings(settings: UISettings): Promise<SaveResult>;
}

/** The part of the Wails runtime the UI uses. */
export interface WailsRuntime {
  EventsOn(name: string, callback: (...data: unknown[]) => void): (() => void) | void;
  EventsOff(name: string, ...additional: string[]): void;
}

declare global {
  interface Window {
    go?: { app?: { App?: AppBindings } };
    runtime?: WailsRuntime;
  }
}

// In `wails dev` browser mode the globals appear only after the runtime has
// connected, so calls wait a bounded time for them instead of failing at once.
const READY_TIMEOUT_MS = 10_000;
const READY_POLL_MS = 50;

const NOT_CONNECTED =
  'The Footnote backend is not connected; start the app with "wails dev" or run the desktop build.';

function currentBindings(): AppBindings | undefined {
  return window.go?.app?.App;
}

async function waitFor<T>(get: () => T | undefined): Promise<T> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const value = get();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(NOT_CONNECTED);
    await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
  }
}

/** Code of a settings save refused until the user confirms a model server on another machine (app.UIError). */
export const REMOTE_UNCONFIRMED = 'remote_server_unconfirmed';

/** A rejected binding call. code and server are set for the errors the UI acts on (app.UIError). */
export class BackendError extends Error {
  readonly code: string | undefined;
  readonly server: string | undefined;
  constructor(message: string, code?: string, server?: string) {
    super(message);
    this.name = 'BackendError';
    this.code = code;
    this.server = server;
  }
}

function stringField(err: unknown, key: string): string | undefined {
  if (!err || typeof err !== 'object' || !(key in err)) return undefined;
  const value: unknown = (err as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
}

async function call<K extends keyof AppBindings>(
  method: K,
  ...args: Parameters<AppBindings[K]>
): Promise<Awaited<ReturnType<AppBindings[K]>>> {
  const app = await waitFor(currentBindings);
  const fn = app[method] as (...a: Parameters<AppBindings[K]>) => ReturnType<AppBindings[K]>;
  try {
    return await fn.apply(app, args);
  } catch (err) {
    throw new BackendError(errorMessage(err), stringField(err, 'code'), stringField(err, 'server'));
  }
}

/** Turns whatever a binding rejected with (Wails rejects with plain strings) into one sentence. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string' && err !== '') return err;
  if (err && typeof err === 'object' && 'message' in err && typeof err.message === 'string') {
    return err.message;
  }
  return 'Something went wrong; see the application log for details.';
}

export const api = {
  status: () => call('Status'),
  ingest: (paths: string[]) => call('Ingest', paths),
  pickFolder: () => call('PickFolder'),
  documents: async (): Promise<DocumentInfo[]> => (await call('Documents')) ?? [],
  ask: (question: string, fresh = false) => (fresh ? call('AskFresh', question) : call('Ask', question)),
  stop: (requestId: string) => call('Stop', requestId),
  search: async (query: string): Promise<Hit[]> => (await call('Search', query)) ?? [],
  downloadModel: () => call('DownloadModel'),
  openDocument: (docId: string) => call('OpenDocument', docId),
  openOriginal: (docId: string) => call('OpenOriginal', docId),
  settings: () => call('Settings'),
  saveSettings: (settings: UISettings) => call('SaveSettings', settings),
  models: async (): Promise<ModelInfo[]> => (await call('Models')) ?? [],
  pullModel: (name: string) => call('PullModel', name),
  history: async (query: string, limit = 50): Promise<Answer[]> => (await call('History', query, limit)) ?? [],
  addPaths: (collection: string, paths: string[]) => call('AddPaths', collection, paths),
  pickFiles: async (): Promise<string[]> => (await call('PickFiles')) ?? [],
  collections: async (): Promise<CollectionInfo[]> => (await call('Collections')) ?? [],
  collectionFiles: async (name: string): Promise<FileStatus[]> => (await call('CollectionFiles', name)) ?? [],
  treatAsDocument: (path: string, on: boolean) => call('TreatAsDocument', path, on),
  retryFile: (path: string) => call('RetryFile', path),
  rescan: (name: string) => call('Rescan', name),
  removeCollection: (name: string) => call('RemoveCollection', name),
  watchState: () => call('WatchState'),
  threads: async (): Promise<Thread[]> => (await call('Threads')) ?? [],
  newThread: (title: string) => call('NewThread', title),
  renameThread: (id: string, title: string) => call('RenameThread', id, title),
  deleteThread: (id: string) => call('DeleteThread', id),
  threadAnswers: async (id: string): Promise<ThreadAnswer[]> => (await call('ThreadAnswers', id)) ?? [],
  askInThread: (threadId: string, question: string, standalone = '') => call('AskInThread', threadId, question, standalone),
};

/**
 * Subscribes to a runtime event and returns the unsubscribe function. If the
 * runtime is not there yet, the subscription is made as soon as it appears.
 */
export function onEvent<K extends keyof EventMap>(
  name: K,
  handler: (payload: EventMap[K]) => void,
): () => void {
  let cancelled = false;
  let off: (() => void) | undefined;
  const listener = (...data: unknown[]) => {
    if (!cancelled) handler(data[0] as EventMap[K]);
  };
  void waitFor(() => window.runtime)
    .then((runtime) => {
      if (cancelled) return;
      const result = runtime.EventsOn(name, listener);
      // Older runtimes return nothing; EventsOff then removes every listener
      // of that name, which is acceptable since each event has one owner here.
      off = typeof result === 'function' ? result : () => runtime.EventsOff(name);
    })
    .catch(() => {
      // The binding calls report the missing backend; nothing to add here.
    });
  return () => {
    cancelled = true;
    off?.();
  };
}

/**
 * Opens an http(s) link in the system browser instead of navigating the app
 * window. Callers confirm with the reader first; the Go side checks the
 * address again, so a link that is not absolute http(s) never opens.
 */
export async function openExternal(url: string): Promise<void> {
  if (webLink(url) === null) {
    throw new Error(`Footnote opens only absolute http:// and https:// links; "${url}" was not opened.`);
  }
  await call('OpenLink', url);
}
