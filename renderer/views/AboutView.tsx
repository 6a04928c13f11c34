import { useOp } from '../query';

export function AboutView() {
  const info = useOp('app:info', {});
  const attributions = useOp('dataset:attributions', {});
  const i = info.data;
  return (
    <div className="page">
      <div className="page-inner" style={{ maxWidth: 900 }}>
        <h1>About Ambiguity Workbench</h1>
        <p>
          A local-first workbench for building, validating, releasing and using benchmarks of ambiguous, often multi-hop, questions: import base
          questions and passages, build instances with the construction pipeline, have people validate them, compute agreement, release and evaluate.
        </p>
        {i ? (
          <dl className="kv card" data-testid="about-info">
            <dt>Version</dt>
            <dd>{i.version} ({i.mode === 'desktop' ? 'desktop app' : 'browser mode'})</dd>
            <dt>Database</dt>
            <dd className="mono">{i.databasePath}</dd>
            <dt>Schema</dt>
            <dd>version {i.schemaVersion}</dd>
            <dt>Engines</dt>
            <dd>SQLite {i.sqlite} · sqlite-vec {i.sqliteVec} · Node {i.node}</dd>
          </dl>
        ) : null}
        <h2>Data and attribution</h2>
        <p className="muted">The demo data bundled with the app are small samples of public datasets, used under their licences. Imported datasets are listed with the licence and attribution they were imported with.</p>
        <table className="plain" data-testid="attributions">
          <thead>
            <tr><th>Dataset</th><th>Licence</th><th>Attribution</th></tr>
          </thead>
          <tbody>
            {(attributions.data ?? []).map((a) => (
              <tr key={a.name}>
                <td>{a.name}{a.bundled ? <span className="muted small"> · bundled sample</span> : null}</td>
                <td>{a.licence || '–'}</td>
                <td>
                  {a.attribution || '–'}
                  {a.url ? (
                    <>
                      {' · '}
                      <a href={a.url} target="_blank" rel="noreferrer">{a.url}</a>
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
