/**
 * The renderer's one way to hand a file to the user: a table as CSV, a release as a zip, an export
 * the server wrote. The browser saves it as a download (the desktop app asks where).
 */

export type FileContent = Blob | string | Uint8Array<ArrayBuffer>;

export function saveFile(fileName: string, content: FileContent, type = 'application/octet-stream'): void {
  const blob = content instanceof Blob ? content : new Blob([content], { type });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  // The download has started from the URL once click() returns; revoking later frees the blob.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Bytes sent as base64 in an operation's answer (a release zip). */
export function fromBase64(base64: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}
