// Types of bundles.mjs (a plain ES module of bin/, run before anything is compiled).

/** What a build wrote to dist/node/current.json. */
export interface Built {
  build: string;
  bundles: Record<string, [size: number, mtimeMs: number] | null>;
  files: Record<string, [size: number, mtimeMs: number] | 0 | null>;
}

export declare const WORKER_ENTRIES: Record<string, string>;
export declare const ENTRIES: Record<string, string>;
export declare const EXTERNAL: string[];
export declare function bundlesAreCurrent(root?: string): boolean;
export declare function buildBundles(root?: string): Promise<Built>;
export declare function cliBundle(root?: string): Promise<string | null>;
export declare function currentBundle(name: string, root?: string): string | null;
export declare function loadModule<T = unknown>(bundle: string | null, fromSource: () => Promise<T>): Promise<T>;
