import { useState } from 'react';
import { isDesktop, pickFile, upload } from '../api';
import { ErrorNotice } from './bits';

/**
 * A file the services read or write. In the desktop app: a path with "Choose…" (the native
 * dialog). In browser mode no path is ever typed: a file to read is uploaded (the field then holds
 * its `upload:` reference, shown by the file's name), and a file to write comes back as a download,
 * so the field only says so and the form's button downloads.
 */

/** What a browser-mode field shows for an upload reference: the file's own name. */
export function uploadName(value: string): string {
  return value.startsWith('upload:') ? value.slice(value.indexOf('/') + 1) : value;
}

interface FileFieldProps {
  id: string;
  value: string;
  onChange: (path: string) => void;
  /** A file to write (a save dialog; a download in browser mode) rather than one to read. */
  save: boolean;
  accept?: string;
  /** Label of the browser-mode upload button. */
  uploadLabel?: string;
}

export function FileField({ id, value, onChange, save, accept, uploadLabel = 'Upload…' }: FileFieldProps) {
  const [error, setError] = useState<Error>();
  const [uploading, setUploading] = useState(false);
  if (isDesktop) {
    return (
      <div style={{ display: 'flex', gap: 8 }}>
        <input id={id} className="input" style={{ flex: 1 }} value={value} onChange={(e) => onChange(e.target.value)} placeholder="/path/to/file" />
        <button type="button" className="button" onClick={() => void pickFile({ save, title: save ? 'Save as' : 'Open a file' }).then((p) => p && onChange(p))}>
          Choose…
        </button>
      </div>
    );
  }
  if (save) return <span className="small muted">The file comes to you as a download.</span>;
  const send = (file: File) => {
    setUploading(true);
    setError(undefined);
    upload(file).then(
      (reference) => {
        onChange(reference);
        setUploading(false);
      },
      (err: Error) => {
        setError(err);
        setUploading(false);
      },
    );
  };
  return (
    <>
      <div className="row-gap">
        <label className="button">
          {uploading ? 'Uploading…' : uploadLabel}
          <input
            id={id}
            type="file"
            hidden
            accept={accept}
            data-testid={`${id}-upload`}
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file) send(file);
            }}
          />
        </label>
        <span className="small mono" data-testid={`${id}-file`}>
          {value ? uploadName(value) : <span className="muted">no file chosen</span>}
        </span>
      </div>
      <ErrorNotice error={error} />
    </>
  );
}
