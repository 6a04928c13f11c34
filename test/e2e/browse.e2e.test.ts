/// <reference lib="dom" />
// Functions passed to page.evaluate and waitForFunction run in the browser.
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportReport } from '../../shared/api';
import { awbJson, startServer } from '../helpers/cli';
import { AMBIGNQ, ASQA, MUSIQUE, readJson, tempDir, writeFile } from '../helpers/db';
import { openWorkbench, SCREENSHOTS, type WorkbenchPage } from './workbench-page';

/**
 * The whole path a user takes: `awb serve` on a throwaway database, the bundled samples
 * imported through the CLI, and the real UI driven in Chromium. Waits are on what the page
 * shows, never on time. Screenshots land in test-results/screenshots.
 */

const tmp = tempDir('awb-e2e-');
let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;
let ui: WorkbenchPage;
let pageErrors: string[] = [];

beforeAll(async () => {
  const db = tmp.file('e2e.db');
  server = await startServer(['--db', db], { AWB_HOME: tmp.file('home') });
  for (const [file, format, dataset] of [
    [MUSIQUE, 'musique', 'MuSiQue train (sample)'],
    [ASQA, 'asqa', 'ASQA dev (sample)'],
    [AMBIGNQ, 'ambignq', 'AmbigNQ dev (sample)'],
  ] as const) {
    const report = awbJson<ImportReport>(['import', file, '--format', format, '--dataset', dataset, '--db', db]);
    expect(report.json.committed).toBe(true);
  }
  ({ browser, page, ui, pageErrors } = await openWorkbench(server.url));
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  tmp.cleanup();
});

describe('browsing instances', () => {
  it('lists every instance in a virtualised, server-paged table', async () => {
    await ui.goto('/');
    await page.waitForURL(/\/instances$/);
    await ui.waitForRowCount(478);
    await ui.waitForRows();
    // Only the rows on screen (plus a margin) exist in the page.
    const rendered = await ui.rows().count();
    expect(rendered).toBeGreaterThan(20);
    expect(rendered).toBeLessThan(100);
    expect(await ui.cellText(0, 0)).toBe('1');
    await ui.screenshot('01-instances');
  });

  it('filters by dataset facet and keeps the filter in the URL', async () => {
    await ui.toggleFacet('Dataset', /AmbigNQ dev/);
    await ui.waitForRowCount(178);
    expect(page.url()).toMatch(/dataset=\d+/);
    await ui.waitForRows();
    expect(await ui.cellText(0, 6)).toBe('AmbigNQ dev (sample)');
    await ui.screenshot('02-filter-ambignq');
    await page.goBack();
    await ui.waitForRowCount(478);
  });

  it('sorts by a column header on the server', async () => {
    await ui.goto('/instances');
    await ui.waitForRows();
    await page.getByRole('columnheader', { name: /Interpretations/ }).click();
    await page.getByRole('columnheader', { name: /Interpretations/ }).click();
    await page.waitForURL(/sort=interpretation_count&dir=desc/);
    await page.waitForFunction(() => document.querySelector('.grid-row[data-index="0"] [role="gridcell"]:nth-child(5)')?.textContent !== '');
    const top = Number(await ui.cellText(0, 4));
    const asqa = readJson<{ qa_pairs: unknown[] }[]>(ASQA);
    const ambignq = readJson<{ annotations: { type: string; qaPairs?: unknown[] }[] }[]>(AMBIGNQ);
    const most = Math.max(...asqa.map((r) => r.qa_pairs.length), ...ambignq.flatMap((r) => r.annotations.map((a) => a.qaPairs?.length ?? 0)));
    await expect.poll(() => ui.cellText(0, 4).then(Number)).toBe(most);
    expect(top).toBeLessThanOrEqual(most);
  });

  it('searches questions, interpretations and answers with FTS5, in the table\'s order or by best match, and highlights the words', async () => {
    await ui.goto('/instances');
    await ui.waitForRowCount(478);
    await ui.search('star wars');
    // The search filters the table and keeps its order (by id): the URL holds no sort.
    await page.waitForURL(/\/instances\?q=star\+wars$/);
    await expect.poll(() => ui.rowCount()).toBeLessThan(10);
    const count = await ui.rowCount();
    expect(count).toBeGreaterThan(2);
    await ui.waitForRows();
    const ids = () => Promise.all(Array.from({ length: count }, (_, i) => ui.cellText(i, 0).then(Number)));
    const ascending = (list: number[]) => list.every((id, i) => i === 0 || id > list[i - 1]!);
    await expect.poll(async () => (await ids()).every((id) => id > 0)).toBe(true);
    const inTableOrder = await ids();
    expect(ascending(inTableOrder)).toBe(true);
    const best = page.getByRole('button', { name: 'Best match first' });
    expect(await best.getAttribute('aria-pressed')).toBe('false');
    await best.click();
    await page.waitForURL(/q=star\+wars&sort=relevance/);
    expect(await best.getAttribute('aria-pressed')).toBe('true');
    // The same rows, in the order the operation gives for sort=relevance, which here is not the table's.
    const response = await fetch(`${server.url}/api/instance:list`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ search: 'star wars', sort: 'relevance' }),
    });
    const ranked = ((await response.json()) as { value: { rows: { id: number }[] } }).value.rows.map((r) => r.id);
    expect([...ranked].sort((a, b) => a - b)).toEqual(inTableOrder);
    expect(ascending(ranked)).toBe(false);
    await expect.poll(ids).toEqual(ranked);
    expect(await ui.grid.locator('.grid-row[data-index="0"] mark').count()).toBeGreaterThanOrEqual(2);
    await ui.screenshot('03-search');
    await best.click();
    await page.waitForURL(/\/instances\?q=star\+wars$/);
    await expect.poll(ids).toEqual(inTableOrder);
    // Clearing the search (Esc) while ranked goes back to the whole table in its order.
    await best.click();
    await page.waitForURL(/sort=relevance/);
    await page.keyboard.press('/');
    await page.keyboard.press('Escape');
    await page.waitForURL(/\/instances$/);
    await ui.waitForRowCount(478);
  });
});

describe('the side-by-side instance view', () => {
  it('opens from the keyboard and shows the question, each interpretation, its answer and the long answer', async () => {
    await ui.goto('/instances?q=darth%20vader&sort=relevance');
    await ui.waitForRows();
    const question = await ui.cellText(0, 1);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/instances\/\d+\?q=darth\+vader&sort=relevance&at=0/);
    await expect.poll(() => page.getByTestId('original-question').innerText()).toBe(question);
    const interpretations = page.getByTestId('interpretation');
    await interpretations.first().waitFor();
    expect(await interpretations.count()).toBe(6);
    expect(await page.getByTestId('clarified-question').first().innerText()).toMatch(/darth vader/i);
    expect(await page.getByTestId('short-answer').first().innerText()).toContain('James Earl Jones');
    // Every short answer is found in both long answers, each in its interpretation's colour.
    const checks = page.getByTestId('long-answer-checks');
    expect(await checks.count()).toBe(2);
    expect(await checks.first().innerText()).toMatch(/all 6 short answers appear in it/);
    expect(await page.getByTestId('long-answer').first().locator('mark').count()).toBeGreaterThanOrEqual(3);
    await ui.screenshot('04-instance-side-by-side');
  });

  it('flags a short answer missing from the long answer', async () => {
    // ASQA dev has long answers that leave out one of the interpretations; find one through the API.
    const response = await fetch(`${server.url}/api/instance:list`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ limit: 300 }),
    });
    const rows = ((await response.json()) as { value: { rows: { id: number }[] } }).value.rows;
    let flagged = false;
    for (const row of rows.slice(0, 60)) {
      await ui.goto(`/instances/${row.id}`);
      await page.getByTestId('instance-head').waitFor();
      await page.getByTestId('long-answer-checks').first().waitFor();
      if ((await page.getByTestId('missing-answer').count()) > 0) {
        flagged = true;
        expect(await page.getByTestId('missing-answer').first().innerText()).toMatch(/does not appear in this long answer/);
        await ui.screenshot('05-missing-answer-flag');
        break;
      }
    }
    expect(flagged).toBe(true);
  });

  it('moves to the next instance with j and back to the list with Esc', async () => {
    await ui.goto('/instances');
    await ui.waitForRows();
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    const third = await ui.cellText(2, 1);
    await page.keyboard.press('Enter');
    await page.waitForURL(/at=2/);
    await expect.poll(() => page.getByTestId('original-question').innerText()).toBe(third);
    await page.keyboard.press('j');
    await page.waitForURL(/at=3/);
    await expect.poll(() => page.getByTestId('original-question').innerText()).not.toBe(third);
    await page.keyboard.press('Escape');
    await page.waitForURL(/\/instances\?row=3$/);
    await ui.waitForRows();
    await page.locator('.grid-row.selected[data-index="3"]').waitFor();
  });
});

describe('base questions', () => {
  it('open to their gold decomposition, answer and paragraphs with the supporting ones marked', async () => {
    await ui.goto('/base-questions');
    await ui.waitForRowCount(700);
    await ui.toggleFacet('Dataset', /MuSiQue/);
    await ui.waitForRowCount(100);
    await ui.waitForRows();
    await ui.grid.locator('.grid-row[data-index="0"]').dblclick();
    await page.getByTestId('decomposition').waitFor();
    const musique = readJson<{ question: string; answer: string; question_decomposition: unknown[]; paragraphs: { is_supporting: boolean }[] }[]>(MUSIQUE);
    const first = musique[0]!;
    expect(await page.getByTestId('original-question').innerText()).toBe(first.question);
    expect(await page.getByTestId('gold-answer').innerText()).toContain(first.answer);
    expect(await page.getByTestId('decomposition').locator('li').count()).toBe(first.question_decomposition.length);
    expect(await page.getByTestId('supporting-paragraph').count()).toBe(first.paragraphs.filter((p) => p.is_supporting).length);
    expect(await page.getByTestId('paragraph').count()).toBe(first.paragraphs.filter((p) => !p.is_supporting).length);
    await ui.screenshot('06-base-question');
  });
});

describe('passage search', () => {
  it('embeds a corpus from the UI, then ranks passages with BM25, dense and hybrid, showing each score', async () => {
    // A small corpus imported through the UI has no vectors until it is embedded from the Search page.
    const lines = ['Alder', 'Birch', 'Cedar', 'Damson', 'Elm'].map((tree, i) => JSON.stringify({ id: `t${i}`, title: tree, text: `The ${tree.toLowerCase()} tree grows in the northern valley number ${i}.` }));
    await ui.goto('/import');
    await page.getByRole('radio', { name: 'Passage corpus' }).click();
    await page.locator('input[type="file"]').setInputFiles(writeFile(tmp.file('trees.jsonl'), lines.join('\n') + '\n'));
    await page.locator('#import-dataset').fill('Trees');
    await expect.poll(() => page.getByTestId('import-path-file').innerText()).toMatch(/trees\.jsonl$/);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByText(/Corpus “Trees”: 5 new passages/).waitFor();

    await ui.goto('/search');
    const corpora = page.getByRole('region', { name: 'Corpora' });
    const trees = corpora.locator('div.small').filter({ hasText: 'Trees' });
    await trees.getByRole('button', { name: 'Embed offline' }).click();
    await trees.getByText(/5 vectors · offline \(lexical\)/).waitFor();
    const musique = corpora.locator('div.small').filter({ hasText: 'MuSiQue train (sample)' });
    await musique.getByRole('button', { name: 'Embed offline' }).click();
    await musique.getByText(/1,890 vectors · offline \(lexical\)/).waitFor();
    await ui.screenshot('12-corpora');

    await ui.goto(`/search?q=${encodeURIComponent('Who published the Journal of Psychotherapy Integration?')}&corpus=${encodeURIComponent('MuSiQue train (sample)')}`);
    const hits = page.getByTestId('search-hit');
    await hits.first().waitFor();
    expect(await hits.count()).toBe(10);
    expect(await hits.first().locator('.title').innerText()).toBe('Journal of Psychotherapy Integration');
    expect(await hits.first().getByTestId('score-breakdown').innerText()).toMatch(/RRF 0\.\d{4}.*BM25 #1 .*dense #\d+/s);
    expect(await page.getByText(/lexical \(word and word-piece overlap, not meaning\)/).count()).toBe(1);
    expect(await hits.first().locator('mark').count()).toBeGreaterThan(2);
    await page.getByRole('button', { name: 'Compute for this question' }).click();
    await page.getByTestId('cues').waitFor();
    expect(await page.getByTestId('cues').innerText()).toMatch(/total hits H\(q\)\s+\d+.*KL divergence\s+\d+\.\d{3}.*retrieval state\s+(ambiguous|uncertain|unambiguous)/s);
    await ui.screenshot('11-search-hybrid');

    await page.getByRole('radio', { name: 'BM25' }).click();
    await page.waitForURL(/mode=bm25/);
    await page.getByTestId('search-summary').filter({ hasText: 'BM25' }).waitFor();
    expect(await hits.first().getByTestId('score-breakdown').innerText()).not.toMatch(/dense #/);
  });
});

describe('the shell', () => {
  it('switches to the dark theme and keeps it', async () => {
    await ui.goto('/instances/24');
    await page.getByTestId('instance-head').waitFor();
    const toggle = page.getByTestId('theme-toggle');
    while (!/dark/.test(await toggle.innerText())) await toggle.click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe('rgb(21, 21, 23)');
    await ui.screenshot('07-instance-dark');
    await page.reload();
    await page.getByTestId('instance-head').waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await ui.goto('/instances');
    await ui.waitForRows();
    await ui.screenshot('08-instances-dark');
    while (!/light/.test(await toggle.innerText())) await toggle.click();
  });

  it('reaches any instance from the command palette', async () => {
    await ui.goto('/instances');
    await ui.waitForRows();
    await page.keyboard.press('Control+k');
    const input = page.getByRole('textbox', { name: 'Command' });
    await input.fill('#7');
    await ui.screenshot('09-command-palette');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/instances\/7$/);
    await page.getByTestId('instance-head').waitFor();
  });

  it('shows the keyboard shortcuts on ?', async () => {
    await ui.goto('/instances');
    await ui.waitForRows();
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  });

  it('credits the datasets with their licences', async () => {
    await ui.goto('/about');
    const table = page.getByTestId('attributions');
    await table.locator('tbody tr').first().waitFor();
    const text = await table.innerText();
    expect(text).toContain('CC BY 4.0');
    expect(text).toContain('CC BY-SA 3.0');
    expect(text).toMatch(/MuSiQue \(Trivedi/);
    expect(await page.getByTestId('about-info').innerText()).toMatch(/sqlite-vec v\d/);
  });
});

describe('importing from the UI', () => {
  it('uploads a file, and a bad one is refused with the place of each problem', async () => {
    const bad = writeFile(tmp.file('broken.json'), JSON.stringify([{ id: 'a', question: 'Q?', paragraphs: [{ idx: 0, title: 'T', paragraph_text: 42 }] }]));
    await ui.goto('/import');
    await page.locator('input[type="file"]').setInputFiles(bad);
    await expect.poll(() => page.getByTestId('import-path-file').innerText()).toMatch(/broken\.json$/);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const errors = page.getByTestId('import-errors');
    await errors.waitFor();
    expect(await errors.innerText()).toMatch(/line 1, element \[0\]\s+paragraphs\[0\]\.paragraph_text\s+Invalid input: expected string, received number/);
    expect(await page.getByTestId('import-report').innerText()).toMatch(/Nothing was imported/);
    await ui.screenshot('10-import-refused');
  });

  it('imports a good file and the table grows without a reload', async () => {
    const good = writeFile(tmp.file('more.json'), JSON.stringify([
      { id: 'extra-1', question: 'Which river runs through the old town?', annotations: [{ type: 'multipleQAs', qaPairs: [{ question: 'Which river runs through the old town of A?', answer: ['Ax'] }, { question: 'Which river runs through the old town of B?', answer: ['Bex'] }] }] },
    ]));
    await ui.goto('/import');
    await page.locator('input[type="file"]').setInputFiles(good);
    await page.locator('#import-format').selectOption('ambignq');
    await page.locator('#import-dataset').fill('Extra');
    await expect.poll(() => page.getByTestId('import-path-file').innerText()).toMatch(/more\.json$/);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByTestId('import-report').waitFor();
    expect(await page.getByTestId('import-report').innerText()).toMatch(/Imported 1 record into “Extra”/);
    await page.getByRole('link', { name: /Instances/ }).first().click();
    await ui.waitForRowCount(479);
  });

  it('downloads an export through the browser, the server choosing where it writes', async () => {
    await ui.goto('/export');
    await page.getByRole('checkbox', { name: /Extra/ }).check();
    const [saved] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-download').click()]);
    expect(saved.suggestedFilename()).toBe('dataset.jsonl');
    const file = tmp.file('downloaded.jsonl');
    await saved.saveAs(file);
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ format: 'awb-instance/1', base_question: { source_id: 'extra-1' } });
    await page.getByText('Saved dataset.jsonl').waitFor();
  });

  it('raised no errors in the page', () => {
    expect(pageErrors).toEqual([]);
    expect(fs.readdirSync(SCREENSHOTS).length).toBeGreaterThanOrEqual(10);
  });
});
