import { contextBridge, ipcRenderer } from 'electron';
import type { EventMessage, Result, WindowApi } from '../shared/api';

/** The renderer's only door: invoke an operation, listen to events, pick a file. Nothing else. */
const api = {
  invoke: (name: string, input: unknown) => ipcRenderer.invoke('awb:invoke', name, input) as Promise<Result<unknown>>,
  subscribe(listener: (message: EventMessage) => void) {
    const handler = (_event: unknown, message: EventMessage) => listener(message);
    ipcRenderer.on('awb:event', handler);
    return () => {
      ipcRenderer.off('awb:event', handler);
    };
  },
  pickFile: (options: { save: boolean; title: string }) =>
    ipcRenderer.invoke('awb:pick-file', options) as Promise<string | null>,
  apiKeys: {
    names: () => ipcRenderer.invoke('awb:key-names') as Promise<string[]>,
    set: (name: string, value: string | null) => ipcRenderer.invoke('awb:key-set', name, value) as Promise<string[]>,
  },
} satisfies WindowApi;

contextBridge.exposeInMainWorld('awb', api);
ipcRenderer.on('awb:navigate', (_event, route: string) => {
  window.dispatchEvent(new CustomEvent('awb:navigate', { detail: route }));
});
