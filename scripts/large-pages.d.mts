// Types of large-pages.mjs (a plain ES module of scripts/, run by the launcher before anything is compiled).

export declare function withLargePages(env?: NodeJS.ProcessEnv, platform?: NodeJS.Platform): NodeJS.ProcessEnv;
export declare function hugePageMode(file?: string): string | null;
