import type { TestProject } from 'vitest/node';
import { chooseBrowser, type BrowserChoice } from './browser';

declare module 'vitest' {
  export interface ProvidedContext {
    browser: BrowserChoice;
  }
}

/** Finds the browser once for the whole run (unpacking the packaged one if need be) and says which. */
export default async function setup(project: TestProject): Promise<void> {
  project.provide('browser', await chooseBrowser());
}
