// The hirope init() the playground's worker loads: the package's full entry. The package's
// element worker (scripts/build-element.mjs) puts web/src/element/worker-init.js in its place,
// which names no data file, so that a bundler copies only the files a page registers.
export { default } from 'hirope';
