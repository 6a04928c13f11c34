/// <reference lib="dom" />
// Functions passed to page.evaluate run in the browser.
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../db/connection';
import { createCampaign } from '../../electron/services/annotation/campaigns';
import { exportPack, importPack, readPack, resultsPath, RESULTS_FORMAT } from '../../electron/services/annotation/packs';
import { importFile } from '../../electron/services/import/import-file';
import type { Rating } from '../../shared/agreement';
import { agreementReport, type AgreementInput } from '../../shared/agreement-report';
import { AMBIGUITY_TYPES } from '../../shared/domain';
import { BUILT_IN_PROTOCOLS } from '../../shared/protocols';
import { launchBrowser } from '../e2e/browser';
import { startServer } from '../helpers/cli';
import { rng, words } from '../helpers/synthetic';
import { percentile, type BenchContext, type Measurement } from './harness';

/**
 * Annotation: every agreement statistic over 100,000 items × 5 annotators × 3 criteria with
 * 1,000 bootstrap resamples; keypress to the next item painted in Chromium, on the real judging
 * screen over `awb serve`; and a 10,000-item offline pack exported and its results imported.
 */

function agreementInput(items: number, seed: number): AgreementInput {
  const random = rng(seed);
  const raters = ['ann', 'bob', 'cid', 'dee', 'eve'];
  const criteria = BUILT_IN_PROTOCOLS[0]!.criteria.map((c) => ({ id: c.id, label: c.label, scale: c.scale }));
  const statuses = ['ready', 'removed'];
  const list = Array.from({ length: items }, (_, i) => ({ id: i + 1, type: AMBIGUITY_TYPES[i % 3]!, status: statuses[Math.floor(random() * 2)]! }));
  const ratings = new Map<string, Rating[][]>();
  criteria.forEach((c, k) => {
    const prevalence = [0.8, 0.95, 0.7][k]!;
    ratings.set(
      c.id,
      list.map(() => {
        const truth = random() < prevalence;
        return raters.map(() => (random() < 0.03 ? null : truth === random() < 0.88 ? 'yes' : 'no'));
      }),
    );
  });
  return { criteria, items: list, raters, ratings, adjudications: new Map() };
}

/** ASQA-shaped records: a question with three interpretations, answers, knowledge and a long answer. */
function asqaRecords(count: number): string {
  const random = rng(17);
  const records = Array.from({ length: count }, (_, i) => {
    const subject = words(random, 3);
    return {
      sample_id: `bench-${i}`,
      ambiguous_question: `When did ${subject} happen?`,
      qa_pairs: [0, 1, 2].map((r) => ({ question: `When did ${subject} happen in interpretation ${r + 1}?`, short_answers: [`${1900 + ((i + r) % 120)}`], wikipage: subject })),
      annotations: [{ long_answer: `Depending on the interpretation, ${subject} happened in ${1900 + (i % 120)}, ${1901 + (i % 120)} or ${1902 + (i % 120)}. ${words(random, 40)}.`, knowledge: [{ content: words(random, 80), wikipage: subject }] }],
    };
  });
  return JSON.stringify(records);
}

/**
 * Keypress to the next item painted, as an annotator meets it: from the moment the browser took
 * the key (the event's own timestamp, before any script ran) to the end of the first frame that
 * shows the next item (a task queued from that frame's requestAnimationFrame runs once the frame
 * is rendered). The annotator reads each item for a moment (the screen fetches the next one
 * meanwhile), then types the three decisions at typing speed, without waiting for the "saved"
 * tick; the third key completes the item and is the one timed.
 */
async function keypressLatency(ctx: BenchContext, dbFile: string, campaignId: number): Promise<number[]> {
  const server = await startServer(['--db', dbFile], { AWB_HOME: path.join(ctx.dir, 'home') });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${server.url}/judge?campaign=${campaignId}&annotator=solo`);
    await page.getByText(/^item 1 of/).waitFor();
    await page.evaluate(() => {
      const w = window as unknown as { latencies: number[]; shown: number };
      w.latencies = [];
      w.shown = 0;
      let pressed = 0;
      window.addEventListener('keydown', (event) => (pressed = event.timeStamp), true);
      const target = document.querySelector('[data-testid="judge-instance"]')!;
      new MutationObserver(() => {
        const start = pressed;
        pressed = 0;
        // After the frame that shows the new item has been rendered: a task posted from that
        // frame's requestAnimationFrame at the highest priority, so work the screen defers until
        // after the paint (saving, counts) runs after it rather than being counted as paint.
        // (No named function in here: tsx would wrap it in a helper the browser does not have.)
        const scheduler = (window as unknown as { scheduler?: { postTask: (f: () => void, o: { priority: string }) => unknown } }).scheduler;
        requestAnimationFrame(() => {
          if (scheduler)
            scheduler.postTask(
              () => {
                if (start) w.latencies.push(performance.now() - start);
                w.shown++;
              },
              { priority: 'user-blocking' },
            );
          else
            setTimeout(() => {
              if (start) w.latencies.push(performance.now() - start);
              w.shown++;
            }, 0);
        });
      }).observe(target, { attributes: true, attributeFilter: ['data-position'] });
    });
    const items = ctx.quick ? 20 : 120;
    for (let i = 0; i < items; i++) {
      // Reading the item (by then the next one has been fetched ahead), then three decisions typed.
      await page.waitForTimeout(250);
      await page.keyboard.press('y');
      await page.waitForTimeout(90);
      await page.keyboard.press('n');
      await page.waitForTimeout(90);
      await page.keyboard.press('y');
      await page.waitForFunction((n) => (window as unknown as { shown: number }).shown >= n, i + 1);
    }
    await page.getByTestId('save-state').filter({ hasText: 'all saved' }).waitFor();
    return await page.evaluate(() => (window as unknown as { latencies: number[] }).latencies);
  } finally {
    await browser.close();
    await server.stop();
  }
}

/** The median of five agreement reports over `items` items, in seconds. */
function agreementSeconds(ctx: BenchContext, items: number): number {
  const input = agreementInput(items, 3);
  const runs: number[] = [];
  let rows = 0;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const report = agreementReport(input, { resamples: 1000, seed: 1 }, { id: 0, name: 'bench', protocol: 'march-validation' });
    runs.push(performance.now() - started);
    rows = report.rows.length + report.statusRows.length;
  }
  ctx.log(`  agreement report, ${items.toLocaleString('en-US')} items: ${rows} rows (3 criteria × overall, 3 types, 2 statuses), pairwise κ for 10 pairs, validity rates`);
  return percentile(runs, 50) / 1000;
}

export async function benchAnnotation(ctx: BenchContext): Promise<Measurement[]> {
  const out: Measurement[] = [];

  // Agreement statistics, at two sizes ten times apart (the bench reports how the cost grows between them).
  const sizes = ctx.quick ? [100, 1_000] : [10_000, 100_000];
  agreementReport(agreementInput(2_000, 4), { resamples: 1000, seed: 1 }, { id: 0, name: 'warm-up', protocol: '' });
  const seconds = sizes.map((items) => agreementSeconds(ctx, items));
  // The large size's row first: it carries the target.
  for (const i of [1, 0]) {
    out.push({
      series: 'agreement',
      size: { count: sizes[i]!, of: 'items' },
      name: `${i ? '' : '  '}all agreement statistics, ${sizes[i]!.toLocaleString('en-US')} items × 5 annotators × 3 criteria, 1,000 resamples (median of 5)`,
      value: seconds[i]!,
      unit: 's',
      target: ctx.quick || !i ? undefined : { max: 0.3 },
    });
  }

  // A 10,000-item pack, over instances with interpretations, answers and evidence.
  const count = ctx.quick ? 200 : 10_000;
  const dbFile = path.join(ctx.dir, 'annotation.db');
  const db = openDatabase(dbFile);
  const source = path.join(ctx.dir, 'asqa-bench.json');
  fs.writeFileSync(source, asqaRecords(count));
  const imported = await importFile(db, { file: source, format: 'asqa', dataset: 'bench' });
  if (!imported.committed) throw new Error('bench import failed');
  const campaign = createCampaign(db, { name: 'bench', protocol: 'march-validation', annotators: ['solo'], seed: 1, selection: { datasets: ['bench'] } });
  const packFile = path.join(ctx.dir, 'solo.awbpack');
  let started = performance.now();
  const exported = exportPack(db, { campaignId: campaign.id, annotator: 'solo', file: packFile });
  const exportSeconds = (performance.now() - started) / 1000;
  // The annotator's results: three judgments per item, as the app appends them.
  const pack = readPack(packFile);
  const lines = [JSON.stringify({ format: RESULTS_FORMAT, campaign_uid: pack.campaign.uid, annotator: 'solo', pack_checksum: pack.checksum, created_at: new Date().toISOString() })];
  pack.items.forEach((item, i) => {
    for (const criterion of ['ambiguity', 'clarification', 'long_answer']) {
      lines.push(JSON.stringify({ type: 'judgment', uid: `bench-${i}-${criterion}`, instance_id: item.instance_id, criterion, value: i % 7 ? 'yes' : 'no', comment: '', item_ms: 4000, undo: false, created_at: new Date().toISOString() }));
    }
  });
  fs.writeFileSync(resultsPath(packFile), `${lines.join('\n')}\n`);
  started = performance.now();
  const merged = importPack(db, packFile);
  const importSeconds = (performance.now() - started) / 1000;
  ctx.log(`  pack: ${exported.items.toLocaleString('en-US')} items, ${(exported.bytes / 2 ** 20).toFixed(1)} MB; import merged ${merged.imported.toLocaleString('en-US')} judgments`);
  out.push({ id: 'pack-export', name: `pack export, ${count.toLocaleString('en-US')} items with interpretations, answers and evidence`, value: exportSeconds, unit: 's', target: ctx.quick ? undefined : { max: 5 } });
  out.push({ id: 'pack-results-import', name: `pack results import, ${count.toLocaleString('en-US')} items × 3 judgments`, value: importSeconds, unit: 's', target: ctx.quick ? undefined : { max: 5 } });

  // Keypress to the next item painted, on the real judging screen.
  const judged = createCampaign(db, { name: 'latency', protocol: 'march-validation', annotators: ['solo'], seed: 2, selection: { datasets: ['bench'], perType: 200 } });
  db.close();
  const latencies = await keypressLatency(ctx, dbFile, judged.id);
  out.push({ id: 'keypress-p95', name: `keypress to the next item painted, Chromium, ${latencies.length} items (p95)`, value: percentile(latencies, 95), unit: 'ms', target: ctx.quick ? undefined : { max: 16 } });
  out.push({ id: 'keypress-p50', name: '  keypress to the next item painted (p50)', value: percentile(latencies, 50), unit: 'ms' });
  out.push({ id: 'keypress-max', name: '  keypress to the next item painted (slowest)', value: Math.max(...latencies), unit: 'ms' });
  return out;
}
