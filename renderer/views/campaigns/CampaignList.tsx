import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { NotAllowed, useAccess } from '../../access';
import { DoneOfTotal, ErrorNotice } from '../../components/bits';
import { useOp } from '../../query';
import { FileField } from '../../components/FileField';

/** The campaigns, and a way into an offline pack. */

export function CampaignsView() {
  const list = useOp('campaign:list', {});
  const [, navigate] = useLocation();
  const [pack, setPack] = useState('');
  const access = useAccess();
  const creating = access.may('campaign:create');
  return (
    <div className="page">
      <div className="page-inner narrow">
        <div className="page-head">
          <h1>Campaigns</h1>
          <div className="spacer" />
          <Link href="/protocols" className="button">
            Protocols
          </Link>
          {creating.allowed ? (
            <Link href="/campaigns/new" className="button primary">
              New campaign
            </Link>
          ) : (
            <NotAllowed permission={creating} what="create campaigns" />
          )}
        </div>
        <ErrorNotice error={list.error} />
        {list.data && list.data.length === 0 ? (
          <div className="empty">
            No campaign yet. A campaign samples instances, gives them to annotators under a protocol, and measures how far they agree.{' '}
            {creating.allowed ? <Link href="/campaigns/new">Create one.</Link> : null}
          </div>
        ) : null}
        {list.data?.length ? (
          <table className="plain" data-testid="campaigns">
            <thead>
              <tr>
                <th>Campaign</th>
                <th>Protocol</th>
                <th className="num">Items</th>
                <th className="num">Annotators</th>
                <th style={{ width: 220 }}>Progress</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((c) => (
                <tr key={c.id} className="clickable" onClick={() => navigate(`/campaigns/${c.id}`)}>
                  <td>
                    <Link href={`/campaigns/${c.id}`}>{c.name}</Link>
                  </td>
                  <td>{c.protocol}</td>
                  <td className="num">{c.items}</td>
                  <td className="num">{c.annotators}</td>
                  <td>
                    <DoneOfTotal done={c.done} total={c.total} />
                  </td>
                  <td className="muted small">{c.createdAt.slice(0, 10)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        {/* Over the network, judging happens in the server's campaigns: a pack is for the person at the machine. */}
        {access.me ? null : (
        <section className="card">
          <h2>Open an annotation pack</h2>
          <p className="small muted">
            A pack holds one annotator's items, the protocol and its guidelines. Judging it needs no database and no network; each decision is saved to a
            results file beside the pack (<span className="mono">PACK.results.jsonl</span>), which the maintainer imports with{' '}
            <span className="mono">awb pack import</span>.
          </p>
          <FileField id="open-pack" value={pack} onChange={setPack} save={false} accept=".awbpack,.json" />
          <div>
            <button type="button" className="button primary" disabled={!pack} onClick={() => navigate(`/judge?pack=${encodeURIComponent(pack)}`)}>
              Open pack
            </button>
          </div>
        </section>
        )}
      </div>
    </div>
  );
}
