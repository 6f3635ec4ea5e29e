// The element's checkpoint attribute: its limits and its URL, shared by the element (which reads
// the attribute against its page) and the worker (web/src/worker/checkpoint-engine.js). Pure.

/** The element's default max-bytes: a checkpoint whose files take more is refused, unread. */
export const CHECKPOINT_MAX_BYTES = 600 * 1024 * 1024;
/** Tokens of code the element's checkpoint maps read (the rest is noted and left out). */
export const CHECKPOINT_TOKENS = 512;

/**
 * The absolute folder URL (ending in /) of a checkpoint attribute, relative to `base` (the
 * page's address); { url } or { problem } in words.
 */
export function checkpointURL(text, base) {
  let url;
  try {
    url = new URL(text, base);
  } catch {
    return { problem: `The checkpoint attribute must be a folder URL, got "${text}".` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return {
      problem: `The checkpoint attribute must be an http(s) folder URL, got "${text}".`,
    };
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return { url: url.href };
}
