// HiRoPEError, the one error type of the JS API, and fail(), which throws it. Internal: the entry
// points re-export HiRoPEError only. The argument reading and checking that throws it is
// marshal.js.

/** Error thrown for every invalid argument or failed computation. */
export class HiRoPEError extends Error {
  constructor(message) {
    super(message);
    this.name = 'HiRoPEError';
  }
}

export const fail = (message) => {
  throw new HiRoPEError(message);
};
