import { Link, Redirect, Route, Switch } from 'wouter';
import { AboutView } from '../views/AboutView';
import { BaseQuestionView } from '../views/BaseQuestionView';
import { BaseQuestionsView, InstancesView } from '../views/BrowseView';
import { CampaignsView } from '../views/campaigns/CampaignList';
import { CampaignView } from '../views/campaigns/CampaignView';
import { NewCampaignView } from '../views/campaigns/NewCampaign';
import { EvaluationView } from '../views/EvaluationView';
import { CompareFailures, FailureItem, FailureTable } from '../views/failures';
import { ExportView, ImportView } from '../views/ImportView';
import { InstanceView } from '../views/instance/InstanceView';
import { JudgingView } from '../views/judging/JudgingView';
import { PipelineView } from '../views/pipeline/PipelineView';
import { AskFirstView } from '../views/construction/AskFirstView';
import { RoundsView } from '../views/construction/RoundsView';
import { ProtocolsView } from '../views/ProtocolsView';
import { ReleasesView } from '../views/releases/ReleasesView';
import { SearchView } from '../views/SearchView';
import { TeamView } from '../views/team/TeamView';

const CAMPAIGN_TABS = ['agreement', 'disagreements', 'files'] as const;

/** Every view at its URL. */
export function Routes() {
  return (
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
      <Route path="/campaigns/:id/:tab">{(params) => <CampaignView id={Number(params.id)} tab={CAMPAIGN_TABS.find((t) => t === params.tab) ?? 'overview'} />}</Route>
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
  );
}
