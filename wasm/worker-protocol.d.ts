// hirope/protocol: the one worker protocol of the package's worker and the playground's: a page's
// WorkerClient and a worker's serve(), with transfers, errors rehydrated into their classes,
// progress, cancellation and restarts.

/** The ArrayBuffers under the typed arrays of a value (each once), for a transfer list. */
export declare function buffers(
  value: unknown,
  out?: ArrayBuffer[],
  seen?: Set<unknown>,
): ArrayBuffer[];
/** A handler's answer with the buffers that go with it. */
export declare class Transfer<T = unknown> {
  constructor(value: T, list: Transferable[]);
  value: T;
  list: Transferable[];
}
/** An answer whose buffers are transferred: by default every buffer under it. */
export declare function transfer<T>(value: T, list?: Transferable[]): Transfer<T>;
/** What crosses postMessage for something a handler threw. */
export interface SerializedError {
  name: string;
  message: string;
  hirope: boolean;
}
export declare function serializeError(error: unknown): SerializedError;
/** The classes rehydrateError makes, by name, and the error for any other name. */
export interface ErrorClasses {
  classes?: Record<string, new (message: string) => Error>;
  fallback?: (name: string, message: string) => Error;
}
/** The error a caller sees for a serialized one. */
export declare function rehydrateError(serialized: SerializedError, options?: ErrorClasses): Error;

/** The scope a worker serves on: a dedicated worker's self, or a stand-in (serve sets onmessage). */
export interface WorkerScope {
  onmessage: unknown;
  postMessage(message: unknown, transfer?: Transferable[]): void;
}
/** A request handler: its answer, or transfer(answer) to move its buffers. */
export interface RequestHandlers {
  [type: string]: (payload: never, context: { progress(stage: unknown): void }) => unknown;
}
/** The worker's half: answers requests by type, one at a time, in order. */
export declare function serve(
  requests: RequestHandlers,
  options?: {
    notices?: Record<string, (payload: never) => void>;
    unknown?: (type: string) => Error;
    scope?: WorkerScope;
  },
): void;
/** Why a call was cancelled: the signal's reason, or an AbortError. */
export declare function abortReason(signal: AbortSignal): unknown;

/** What a WorkerClient starts: a Web Worker or anything with its interface. */
export interface WorkerLike {
  /** Set by the client. */
  onmessage: unknown;
  /** Set by the client. */
  onerror: unknown;
  postMessage(message: unknown, transfer?: Transferable[]): void;
  terminate(): void;
}
export interface WorkerClientOptions {
  /** Posts the notices a fresh worker needs first. */
  onStart?:
    | ((notify: (type: string, payload?: unknown, transfer?: Transferable[]) => void) => void)
    | null;
  /** Request types whose last payload a fresh worker gets again. */
  sticky?: string[];
  /** The error pending calls reject with when the worker fails (or does not start). */
  failed?: (event: ErrorEvent | Error) => Error;
  errors?: ErrorClasses;
}
/** The page's half: one worker at a time, from spawn(). */
export declare class WorkerClient {
  constructor(spawn: () => WorkerLike, options?: WorkerClientOptions);
  /** The worker now running. */
  readonly worker: WorkerLike;
  /** One request; resolves with the worker's answer. */
  request<T = unknown>(
    type: string,
    payload?: unknown,
    options?: {
      signal?: AbortSignal | null;
      progress?: ((stage: unknown) => void) | null;
      transfer?: Transferable[];
    },
  ): Promise<T>;
  /** Replaces the worker: pending calls are posted again, or (reason given) reject with it. */
  restart(reason?: unknown): void;
  /** Stops the worker for good: pending and later calls reject (with reason, when given). */
  terminate(reason?: Error): void;
}
