// hirope/assets: where the files the package loads are served, as the asset modules
// (hirope/assets/<kind>/<name>) register them; shared by every copy of the package on a page.

/** The global symbol's key of the registry (Symbol.for(ASSET_REGISTRY_KEY)). */
export declare const ASSET_REGISTRY_KEY: string;
/** Records where a file is served, by its name in the package ('data/cl100k.bin'). */
export declare function registerAsset(name: string, url: string | URL): void;
/** The URL registered for a file, or undefined. */
export declare function registeredAsset(name: string): URL | undefined;
/** The text registered for a small file (a gallery config, hirope/assets/config/<id>), or undefined. */
export declare function registeredText(name: string): string | undefined;
