import type { LabelTables, RoundFunnel } from '../construction';

/**
 * The card's sections for issue 25's data: the topic table (laid out as MARCH Table 7, with a
 * column per ambiguity type), the answerability counts (URASys labels), and the CondAmbigQA
 * rounds (acceptance per round, cost and time per item).
 */

const n = (v: number) => v.toLocaleString('en-US');
const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);

function table(header: string[], rows: string[][]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [`| ${header.map(esc).join(' | ')} |`, `| ${header.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}

export function labelsSection(labels: LabelTables): string {
  const parts = ['## Topics and answerability'];
  const tagged = labels.domains.some((d) => d.total > 0);
  if (tagged) {
    parts.push(
      '',
      'Topic of each released instance (the 15 labels of MARCH Table 7), per ambiguity type; the ratio is over the tagged instances.',
      '',
      table(
        ['Topic', ...labels.types, 'Total', 'Ratio'],
        labels.domains.map((d) => [d.label, ...labels.types.map((t) => n(d.counts[t] ?? 0)), n(d.total), pct(d.ratio)]),
      ),
    );
    if (labels.untagged) parts.push('', `${n(labels.untagged)} instances have no topic.`);
  } else parts.push('', 'No released instance has a topic yet.');
  const answerability = Object.entries(labels.answerability).sort(([a], [b]) => a.localeCompare(b));
  parts.push('', 'Answerability (URASys labels: the instance\'s own, else its base question\'s; two or more interpretations count as ambiguous):', '', table(['Label', 'Instances'], answerability.map(([label, count]) => [label, n(count)])));
  return parts.join('\n');
}

export function roundsSection(funnels: readonly RoundFunnel[]): string {
  const parts = ['## Construction rounds', '', 'Instances drafted by a model in CondAmbigQA-style rounds and reviewed by people: acceptance per round, and what each drafted item cost.'];
  for (const f of funnels) {
    parts.push(
      '',
      `**${f.dataset}**: ${n(f.items)} items started, ${n(f.accepted)} accepted, ${n(f.removed)} given up after the last round, ${n(f.building)} still in rounds.`,
      '',
      table(
        ['Round', 'Drafted', 'Accepted', 'Rejected', 'Acceptance', 'Cumulative', 'Cost per item (USD)', 'Model time per item (s)', 'Review time per item (s)'],
        f.rounds.map((r) => [
          String(r.round),
          n(r.drafted),
          n(r.accepted),
          n(r.rejected),
          pct(r.acceptance),
          pct(r.cumulativeAcceptance),
          r.costPerItem === null ? '–' : r.costPerItem.toFixed(4),
          r.llmMsPerItem === null ? '–' : (r.llmMsPerItem / 1000).toFixed(1),
          r.reviewMsPerItem === null ? '–' : (r.reviewMsPerItem / 1000).toFixed(1),
        ]),
      ),
    );
  }
  parts.push('', 'For comparison, CondAmbigQA reports 40% of its items accepted after the first round and 85% after two more, at about $0.3-0.5 per item.');
  return parts.join('\n');
}
