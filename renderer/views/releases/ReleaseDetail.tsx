import { useState } from 'react';
import { Link } from 'wouter';
import { call, isDesktop } from '../../api';
import { ErrorNotice } from '../../components/bits';
import { fromBase64, saveFile } from '../../download';
import { useOp } from '../../query';
import { Card } from './Card';
import { GateReport } from './Gate';
import { diffHref, previousVersion } from './versions';

/** One release: counts, gate with coverage, folder (or its zip in browser mode), files, card; a new version from it, and the diff with the previous one. */

function FolderActions({ id, dir }: { id: number; dir: string }) {
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  if (isDesktop) {
    return (
      <>
        <button type="button" className="button" onClick={() => void window.awb?.showFolder(dir)}>
          Open folder
        </button>
        <button type="button" className="button" onClick={() => void navigator.clipboard?.writeText(dir)}>
          Copy folder path
        </button>
      </>
    );
  }
  const zip = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const z = await call('release:zip', { id });
      saveFile(z.fileName, fromBase64(z.base64), 'application/zip');
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" className="button" disabled={busy} onClick={() => void zip()} data-testid="release-zip">
        {busy ? 'Zipping…' : 'Download as zip'}
      </button>
      <ErrorNotice error={error} />
    </>
  );
}

export function ReleaseDetailView({ id }: { id: number }) {
  const release = useOp('release:get', { id });
  const list = useOp('release:list', {});
  const r = release.data;
  const previous = r && list.data ? previousVersion(list.data, r) : null;
  return (
    <div className="page">
      <div className="page-inner">
        <div className="muted small">
          <Link href="/releases">Releases</Link> /
        </div>
        <ErrorNotice error={release.error ?? undefined} />
        {r ? (
          <>
            <div className="row-gap">
              <h1 style={{ margin: 0 }} data-testid="release-title">
                {r.name} {r.version}
              </h1>
              <span className="spacer" style={{ flex: 1 }} />
              {previous ? (
                <Link href={diffHref(previous.id, r.id)} className="button" data-testid="compare-previous">
                  Compare with {previous.version}
                </Link>
              ) : null}
              <Link href={`/releases/new?from=${r.id}`} className="button primary" data-testid="new-version">
                New version…
              </Link>
            </div>
            <div className="card">
              <dl className="kv">
                <dt>Instances</dt>
                <dd>
                  {r.instances.toLocaleString('en-US')} ({Object.entries(r.counts).map(([s, n]) => `${s} ${n}`).join(', ')})
                </dd>
                <dt>Licence</dt>
                <dd>{r.licence}</dd>
                <dt>Folder</dt>
                <dd className="mono">{r.dir}</dd>
                <dt>Built with</dt>
                <dd>
                  Ambiguity Workbench {r.appVersion}, schema {r.schemaVersion}, on {r.createdAt.slice(0, 10)}
                </dd>
              </dl>
              <div className="row-gap">
                <FolderActions id={r.id} dir={r.dir} />
              </div>
            </div>
            <GateReport gate={r.gate} testId="release-detail-gate" />
            <table className="plain compact" data-testid="release-files">
              <thead>
                <tr>
                  <th>File</th>
                  <th className="num">Rows</th>
                  <th>SHA-256</th>
                </tr>
              </thead>
              <tbody>
                {r.files.map((f) => (
                  <tr key={f.path}>
                    <td className="mono">{f.path}</td>
                    <td className="num">{f.rows ?? ''}</td>
                    <td className="mono small" title={f.sha256}>
                      {f.sha256.slice(0, 16)}…
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <div className="release-card-box">
              <Card text={r.card} />
            </div>
          </>
        ) : null}
      </div>
    </div>
  );
}
