/** Releases: frozen, versioned snapshots of instances with splits, a card, files and a gate. */

export const releaseOperations = {} as const;
