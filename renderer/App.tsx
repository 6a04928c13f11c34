import { useEffect, useMemo, useRef, useState } from 'react';
import { Link, Redirect, Route, Switch, useLocation } from 'wouter';
import { workflowCommands } from './commands';
import { CommandPalette, ShortcutSheet, type Command } from './components/CommandPalette';
import { formatCount, plural } from './components/bits';
import { useKeys, useTheme, type Theme } from './hooks';
import { useJobs, useOp } from './query';
import { AboutView } from './views/AboutView';
import { BaseQuestionView } from './views/BaseQuestionView';
import { BaseQuestionsView, InstancesView } from './views/BrowseView';
import { CampaignsView, CampaignView, NewCampaignView } from './views/CampaignsView';
import { ExportView, ImportView, JobLine } from './views/ImportView';
import { EvaluationView } from './views/EvaluationView';
import { CompareFailures, FailureItem, FailureTable } from './views/failures';
import { InstanceView } from './views/InstanceView';
import { JudgingView } from './views/judging/JudgingView';
import { PipelineView } from './views/pipeline/PipelineView';
import { RoundsView } from './views/construction/RoundsView';
import { AskFirstView } from './views/construction/AskFirstView';
import { ProtocolsView } from './views/ProtocolsView';
import { ReleasesView } from './views/releases/ReleasesView';
import { SearchView } from './views/SearchView';
import { SignInGate } from './views/team/SignIn';
import { TeamStatusBar } from './views/team/SyncStatus';
import { TeamView } from './views/team/TeamView';

const NEXT_THEME: Record<Theme, Theme> = { system: 'dark', dark: 'light', light: 'system' };
const THEME_ICON: Record<Theme, string> = { system: '◐', dark: '☾', light: '☀' };

function NavLink({ href, label, count }: { href: string; label: string; count?: number | undefined }) {
  const [location] = useLocation();
  const active = location === href || location.startsWith(`${href}/`);
  return (
    <Link href={href} className={active ? 'active' : ''}>
      {label}
      {count !== undefined ? <span className="count">{formatCount(count)}</span> : null}
    </Link>
  );
}

/** In team mode (browser), nobody sees the app before signing in. */
export function App() {
  return (
    <SignInGate>
      <Workbench />
    </SignInGate>
  );
}

function Workbench() {
  const [location, navigate] = useLocation();
  const [theme, setTheme] = useTheme();
  const [palette, setPalette] = useState(false);
  const [sheet, setSheet] = useState(false);
  const stats = useOp('stats:get', {});
  const info = useOp('app:info', {});
  const jobs = useJobs();
  const running = jobs.filter((j) => j.state === 'running');
  const pendingG = useRef(0);

  // Opened with a pack (`npm start -- FILE`): straight to judging it.
  const openedPack = useRef(false);
  useEffect(() => {
    if (!info.data?.pack || openedPack.current) return;
    openedPack.current = true;
    navigate(`/judge?pack=${encodeURIComponent(info.data.pack)}`, { replace: true });
  }, [info.data?.pack, navigate]);

  // The desktop menu navigates through the preload.
  useEffect(() => {
    const onNavigate = (event: Event) => navigate((event as CustomEvent<string>).detail);
    window.addEventListener('awb:navigate', onNavigate);
    return () => window.removeEventListener('awb:navigate', onNavigate);
  }, [navigate]);

  const commands: Command[] = useMemo(
    () => [
      { id: 'instances', title: 'Go to instances', hint: 'g i', run: () => navigate('/instances') },
      { id: 'base-questions', title: 'Go to base questions', hint: 'g b', run: () => navigate('/base-questions') },
      { id: 'search', title: 'Search passages (BM25, dense, hybrid)', hint: 'g s', run: () => navigate('/search') },
      { id: 'pipeline', title: 'Pipeline: run, funnel, failures, prompts, prices', hint: 'g l', run: () => navigate('/pipeline') },
      { id: 'ask-first', title: 'Ask-first runs (URASys): accuracy per answerability label', run: () => navigate('/ask-first') },
      { id: 'rounds', title: 'Construction rounds (CondAmbigQA): acceptance, cost and time per round', run: () => navigate('/rounds') },
      { id: 'campaigns', title: 'Go to annotation campaigns', hint: 'g c', run: () => navigate('/campaigns') },
      { id: 'new-campaign', title: 'New annotation campaign…', run: () => navigate('/campaigns/new') },
      { id: 'protocols', title: 'Annotation protocols', hint: 'g p', run: () => navigate('/protocols') },
      { id: 'import', title: 'Import a file…', hint: 'Ctrl I', run: () => navigate('/import') },
      { id: 'export', title: 'Export instances…', hint: 'Ctrl E', run: () => navigate('/export') },
      { id: 'about', title: 'About, versions and data attribution', run: () => navigate('/about') },
      { id: 'theme-dark', title: 'Theme: dark', run: () => setTheme('dark') },
      { id: 'theme-light', title: 'Theme: light', run: () => setTheme('light') },
      { id: 'theme-system', title: 'Theme: follow the system', run: () => setTheme('system') },
      { id: 'shortcuts', title: 'Keyboard shortcuts', hint: '?', run: () => setSheet(true) },
      { id: 'semantic', title: 'Show semantic instances', run: () => navigate('/instances?type=semantic') },
      { id: 'syntactic', title: 'Show syntactic instances', run: () => navigate('/instances?type=syntactic') },
      { id: 'constraint', title: 'Show constraint instances', run: () => navigate('/instances?type=constraint') },
      { id: 'removed', title: 'Show removed instances', run: () => navigate('/instances?status=removed') },
      ...workflowCommands(navigate),
    ],
    [navigate, setTheme],
  );

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        setPalette((open) => !open);
      } else if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'i') {
        event.preventDefault();
        navigate('/import');
      } else if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'e') {
        event.preventDefault();
        navigate('/export');
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [navigate]);

  useKeys(
    (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === '?') {
        setSheet(true);
        return;
      }
      if (event.key === 'g') {
        pendingG.current = Date.now();
        return;
      }
      if (Date.now() - pendingG.current < 1000) {
        pendingG.current = 0;
        if (event.key === 'i') navigate('/instances');
        else if (event.key === 'b') navigate('/base-questions');
        else if (event.key === 's') navigate('/search');
        else if (event.key === 'c') navigate('/campaigns');
        else if (event.key === 'p') navigate('/protocols');
        else if (event.key === 'l') navigate('/pipeline');
      }
    },
    // The judging screen and the failure view of an item own every key.
    !palette && !sheet && !location.startsWith('/judge') && !/^\/evaluation\/\d+\/items\/\d+/.test(location),
  );

  return (
    <div className="shell">
      <header className="topbar">
        <div className="brand">
          <span className="brand-mark">A</span> Ambiguity Workbench
        </div>
        <div className="spacer" />
        <button type="button" className="palette-button" onClick={() => setPalette(true)} aria-label="Open the command palette">
          Search commands… <span className="spacer" /> <kbd>Ctrl K</kbd>
        </button>
        <div className="spacer" />
        <button type="button" className="button ghost" onClick={() => setSheet(true)} title="Keyboard shortcuts (?)">
          <kbd>?</kbd>
        </button>
        <button
          type="button"
          className="button ghost"
          data-testid="theme-toggle"
          onClick={() => setTheme(NEXT_THEME[theme])}
          title={`Theme: ${theme} (click to change)`}
          aria-label={`Theme: ${theme}`}
        >
          {THEME_ICON[theme]} {theme}
        </button>
      </header>
      <nav className="sidebar" aria-label="Views">
        <h3 className="section">Data</h3>
        <NavLink href="/instances" label="Instances" count={stats.data?.instances} />
        <NavLink href="/base-questions" label="Base questions" count={stats.data?.baseQuestions} />
        <NavLink href="/search" label="Passages" count={stats.data?.passages} />
        <NavLink href="/pipeline" label="Pipeline" />
        <NavLink href="/evaluation" label="Evaluation" />
        <h3 className="section">Annotation</h3>
        <NavLink href="/campaigns" label="Campaigns" />
        <NavLink href="/protocols" label="Protocols" />
        <NavLink href="/team" label="Team" />
        <h3 className="section">Files</h3>
        <NavLink href="/import" label="Import" />
        <NavLink href="/export" label="Export" />
        <NavLink href="/releases" label="Releases" />
        <h3 className="section">Help</h3>
        <NavLink href="/about" label="About & data" />
      </nav>
      <main className="main">
        <Switch>
          <Route path="/">
            <Redirect to="/instances" replace />
          </Route>
          <Route path="/instances">
            <InstancesView />
          </Route>
          <Route path="/instances/:id">{(params) => <InstanceView id={Number(params.id)} />}</Route>
          <Route path="/base-questions">
            <BaseQuestionsView />
          </Route>
          <Route path="/base-questions/:id">{(params) => <BaseQuestionView id={Number(params.id)} />}</Route>
          <Route path="/search">
            <SearchView />
          </Route>
          <Route path="/campaigns">
            <CampaignsView />
          </Route>
          <Route path="/campaigns/new">
            <NewCampaignView />
          </Route>
          <Route path="/campaigns/:id">{(params) => <CampaignView id={Number(params.id)} tab="overview" />}</Route>
          <Route path="/campaigns/:id/:tab">
            {(params) => <CampaignView id={Number(params.id)} tab={(['agreement', 'disagreements', 'files'] as const).find((t) => t === params.tab) ?? 'overview'} />}
          </Route>
          <Route path="/pipeline">
            <PipelineView tab="run" />
          </Route>
          <Route path="/pipeline/:tab">{(params) => <PipelineView tab={params.tab} />}</Route>
          <Route path="/rounds">
            <RoundsView dataset={null} />
          </Route>
          <Route path="/rounds/:dataset">{(params) => <RoundsView dataset={decodeURIComponent(params.dataset)} />}</Route>
          <Route path="/ask-first">
            <AskFirstView run={null} />
          </Route>
          <Route path="/ask-first/:run">{(params) => <AskFirstView run={Number(params.run)} />}</Route>
          <Route path="/judge">
            <JudgingView />
          </Route>
          <Route path="/protocols">
            <ProtocolsView />
          </Route>
          <Route path="/protocols/:key">{(params) => <ProtocolsView selected={params.key} />}</Route>
          <Route path="/import">
            <ImportView />
          </Route>
          <Route path="/export">
            <ExportView />
          </Route>
          <Route path="/evaluation">
            <EvaluationView />
          </Route>
          <Route path="/evaluation/compare">
            <CompareFailures />
          </Route>
          <Route path="/evaluation/:run">{(params) => <EvaluationView run={Number(params.run)} />}</Route>
          <Route path="/evaluation/:run/items">{(params) => <FailureTable run={Number(params.run)} />}</Route>
          <Route path="/evaluation/:run/items/:item">{(params) => <FailureItem key={params.run} run={Number(params.run)} id={Number(params.item)} />}</Route>
          <Route path="/releases">
            <ReleasesView />
          </Route>
          <Route path="/releases/:id">{(params) => <ReleasesView id={params.id} />}</Route>
          <Route path="/about">
            <AboutView />
          </Route>
          <Route path="/team">
            <TeamView />
          </Route>
          <Route>
            <div className="empty">
              Nothing here. <Link href="/instances">Go to the instances.</Link>
            </div>
          </Route>
        </Switch>
      </main>
      <footer className="statusbar" data-testid="statusbar">
        <span className="mono" title="Database file">{info.data?.databasePath ?? ''}</span>
        <span>{plural(stats.data?.instances, 'instance')}</span>
        <span>{plural(stats.data?.baseQuestions, 'base question')}</span>
        <span>{plural(stats.data?.passages, 'passage')}</span>
        <span className="spacer" />
        <TeamStatusBar />
        {running.map((job) => (
          <JobLine key={job.id} job={job} />
        ))}
        <span className="muted">{info.data?.mode === 'desktop' ? 'desktop' : 'browser mode'}</span>
      </footer>
      {palette ? <CommandPalette commands={commands} onClose={() => setPalette(false)} onOpenInstance={(id) => navigate(`/instances/${id}`)} /> : null}
      {sheet ? <ShortcutSheet onClose={() => setSheet(false)} /> : null}
    </div>
  );
}
