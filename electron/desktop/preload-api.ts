import type { EventMessage, Result, WindowApi } from '../../shared/api';

/**
 * What the preload exposes to the page as `window.awb`, built from the few `ipcRenderer` methods
 * it needs, so that tests can check it with a fake: exactly the WindowApi, nothing of Node or
 * Electron, and no IPC event object ever reaches the page.
 */

export interface PreloadIpc {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  off(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

export const CHANNELS = {
  invoke: 'awb:invoke',
  event: 'awb:event',
  pickFile: 'awb:pick-file',
  keyNames: 'awb:key-names',
  keySet: 'awb:key-set',
  navigate: 'awb:navigate',
  showFolder: 'awb:show-folder',
} as const;

export function createWindowApi(ipc: PreloadIpc): WindowApi {
  return {
    invoke: (name: string, input: unknown) => ipc.invoke(CHANNELS.invoke, name, input) as Promise<Result<unknown>>,
    subscribe(listener: (message: EventMessage) => void) {
      const handler = (_event: unknown, message: unknown) => listener(message as EventMessage);
      ipc.on(CHANNELS.event, handler);
      return () => {
        ipc.off(CHANNELS.event, handler);
      };
    },
    pickFile: (options: { save: boolean; title: string }) =>
      ipc.invoke(CHANNELS.pickFile, { save: options.save === true, title: String(options.title) }) as Promise<string | null>,
    showFolder: (folder: string) => ipc.invoke(CHANNELS.showFolder, String(folder)) as Promise<boolean>,
    apiKeys: {
      names: () => ipc.invoke(CHANNELS.keyNames) as Promise<string[]>,
      set: (name: string, value: string | null) => ipc.invoke(CHANNELS.keySet, name, value) as Promise<string[]>,
    },
  };
}
