import { contextBridge, ipcRenderer } from 'electron';
import { CHANNELS, createWindowApi } from './preload-api';

/** The renderer's only door: invoke an operation, listen to events, pick a file. Nothing else. */
contextBridge.exposeInMainWorld('awb', createWindowApi(ipcRenderer));
ipcRenderer.on(CHANNELS.navigate, (_event, route: unknown) => {
  if (typeof route === 'string') window.dispatchEvent(new CustomEvent('awb:navigate', { detail: route }));
});
