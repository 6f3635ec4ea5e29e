// 'hirope/core': the same API as 'hirope' without code analysis (hasAnalysis is false).
export * from './index.js';
export { default } from './index.js';
