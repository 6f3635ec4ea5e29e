// The page's colour maps live in the package (wasm/colormap.js), so that the command line's --png
// colours its heatmaps with the very same code; esbuild bundles them from there.
export * from '../../../wasm/colormap.js';
