// A worker whose module cannot load (as a blocked or missing import fails a browser's module
// worker): it throws before serve() runs (tests/js/worker-protocol.test.mjs).
throw new Error('the import was blocked');
