import { Link, useLocation } from 'wouter';
import { NotAllowed, useAccess } from '../../access';
import { DoneOfTotal, ErrorNotice, plural } from '../../components/bits';
import { useOp } from '../../query';
import { AgreementPanel, DisagreementsPanel } from '../AgreementView';
import { dirname, FilesPanel, PackExport } from './CampaignFiles';

/** One campaign: its progress per annotator (with their queues and packs), agreement, disagreements and files. */

const TABS = ['overview', 'agreement', 'disagreements', 'files'] as const;
type Tab = (typeof TABS)[number];

export function CampaignView({ id, tab }: { id: number; tab: Tab }) {
  const campaign = useOp('campaign:get', { id });
  const info = useOp('app:info', {});
  const [, navigate] = useLocation();
  const access = useAccess();
  const c = campaign.data;
  // What this role may not do is left out, with one line that says why.
  const packs = access.may('pack:export');
  const files = access.may('judgment:export');
  const tabs = TABS.filter((t) => t !== 'files' || files.allowed);
  const otherQueues = c?.progress.find((p) => !access.mayJudgeAs(p.annotator).allowed);
  const directory = info.data ? dirname(info.data.databasePath) : '.';
  return (
    <div className="page">
      <div className="page-inner">
        <div className="crumbs">
          <Link href="/campaigns">← Campaigns</Link>
        </div>
        <ErrorNotice error={campaign.error} />
        {c ? (
          <>
            <header className="page-head">
              <div>
                <h1 data-testid="campaign-name">{c.name}</h1>
                <div className="small muted">
                  {c.protocol.name} v{c.protocol.version} · {plural(c.items.length, 'instance')} · {plural(c.annotators.length, 'annotator')}, {c.perInstance} per instance · seed {c.seed} ·{' '}
                  {c.blind ? 'blind' : 'not blind'} · created {c.createdAt.slice(0, 16).replace('T', ' ')}
                </div>
              </div>
            </header>
            <div className="tabs" role="tablist">
              {tabs.map((t) => (
                <button key={t} type="button" role="tab" aria-selected={t === tab} className={t === tab ? 'active' : ''} onClick={() => navigate(`/campaigns/${id}${t === 'overview' ? '' : `/${t}`}`)}>
                  {t[0]!.toUpperCase() + t.slice(1)}
                </button>
              ))}
            </div>
            {tab === 'overview' && (otherQueues || !packs.allowed) ? (
              <p className="small muted" data-testid="role-note">
                {!access.may('judging:decide').allowed ? <NotAllowed permission={access.may('judging:decide')} what="judge" /> : otherQueues ? <>You judge as {access.me?.name}; the other queues are their annotators'.</> : null}{' '}
                {packs.allowed ? null : "Offline packs and the campaign's files are for maintainers."}
              </p>
            ) : null}
            {tab === 'overview' ? (
              <table className="plain" data-testid="campaign-progress">
                <thead>
                  <tr>
                    <th>Annotator</th>
                    <th style={{ width: 240 }}>Done</th>
                    <th className="num">Skipped</th>
                    <th className="num">Time</th>
                    <th>Judge</th>
                    {packs.allowed ? <th>Offline pack</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {c.progress.map((p) => (
                    <tr key={p.annotator}>
                      <td>{p.annotator}</td>
                      <td>
                        <DoneOfTotal done={p.done} total={p.total} />
                      </td>
                      <td className="num">{p.skipped}</td>
                      <td className="num">{p.seconds ? `${Math.round(p.seconds / 60)} min (${(p.seconds / Math.max(1, p.done)).toFixed(0)} s/item)` : '–'}</td>
                      <td>
                        {access.mayJudgeAs(p.annotator).allowed ? (
                          <Link href={`/judge?campaign=${c.id}&annotator=${encodeURIComponent(p.annotator)}`} className="button small">
                            Judge as {p.annotator}
                          </Link>
                        ) : null}
                      </td>
                      {packs.allowed ? (
                        <td>
                          <PackExport campaign={c} annotator={p.annotator} directory={directory} />
                        </td>
                      ) : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : null}
            {tab === 'agreement' ? <AgreementPanel campaignId={c.id} criteria={c.protocol.criteria} /> : null}
            {tab === 'disagreements' ? <DisagreementsPanel campaign={c} /> : null}
            {tab === 'files' ? files.allowed ? <FilesPanel campaign={c} directory={directory} /> : <div className="notice">{files.reason}</div> : null}
          </>
        ) : null}
      </div>
    </div>
  );
}
