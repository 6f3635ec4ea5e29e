// A playground link in the format every version so far writes ("#s=" + base64url of the
// deflate-raw'd JSON of what differs from the defaults), made once and kept: it must keep loading
// (tests/js/links.test.mjs, tests/browser/links.test.mjs).
export const OLD_LINK =
  '#s=FcxBCgIxDAXQq4S_UgmiFUGy9hizqTaDXZiWWJmRoXeX7h9vQ3X9aIMAjGdJCkHSmebdupfJiIhc29eNVjpQmAyMl8Z0z2_IJTCax2yQc7gxImRD-9WRuHqpCsaSLZVl4M54DOGx5QI5HcO19z8';
/** What OLD_LINK holds. */
export const OLD_LINK_STATE = {
  preset: '',
  code: 'def f(x):\n    return x * 2\n',
  headDim: 32,
  train: 128,
  a: { type: 'rerope', window: 32 },
  b: { ratio: 0.25 },
};
