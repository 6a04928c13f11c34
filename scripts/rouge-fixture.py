"""Writes test/fixtures/rouge-asqa.json: ROUGE-L (rougeLsum, stemmed) as ASQA's scorer computes it,
for the first 100 records of the bundled ASQA sample, from an independent re-implementation:

- sentences: NLTK's own Punkt (PunktSentenceTokenizer) on the lower-cased text, with the
  parameters of shared/eval/punkt.ts's PUNKT_BUILTIN, joined with newlines and split again
  (ASQA's `'\n'.join(sent_tokenize(text.lower()))`, then rouge_score's `get_sents`);
- tokens: rouge_score's tokenizer (lower-case, [^a-z0-9]+ separates, NLTK's PorterStemmer on
  tokens longer than 3 characters, tokens not matching ^[a-z0-9]+$ dropped);
- score: rouge_score's `_summary_level_lcs` line for line (union LCS with `_backtrack_norec`,
  hits capped by the token counts on both sides), best F over the references.

Candidates: (a) the second annotation with its ". "-separated parts in reverse order, scored
against both annotations; (b) the first annotation scored against the second alone.

Run with any Python that has NLTK 3.9 or later:  python3 scripts/rouge-fixture.py
"""
import collections
import json
import os
import re

from nltk.stem import porter
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
source = open(os.path.join(ROOT, 'shared/eval/punkt.ts'), encoding='utf8').read()
block = re.search(r'const BUILTIN_ABBREVIATIONS = \[(.*?)\];', source, re.S).group(1)
params = PunktParameters()
params.abbrev_types = set(re.findall(r"'([^']+)'", block))
punkt = PunktSentenceTokenizer(params)
stemmer = porter.PorterStemmer()


def tokenize(text):
    text = re.sub(r'[^a-z0-9]+', ' ', text.lower())
    tokens = re.split(r'\s+', text)
    tokens = [stemmer.stem(x) if len(x) > 3 else x for x in tokens]
    return [x for x in tokens if re.match(r'^[a-z0-9]+$', x)]


def sentences(text):
    joined = '\n'.join(punkt.tokenize(text.lower()))
    return [s for s in joined.split('\n') if len(s)]


def lcs_table(ref, can):
    rows, cols = len(ref), len(can)
    t = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(1, rows + 1):
        for j in range(1, cols + 1):
            if ref[i - 1] == can[j - 1]:
                t[i][j] = t[i - 1][j - 1] + 1
            else:
                t[i][j] = max(t[i - 1][j], t[i][j - 1])
    return t


def backtrack_norec(t, ref, can):
    i, j, lcs = len(ref), len(can), []
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            lcs.insert(0, i - 1)
            i -= 1
            j -= 1
        elif t[i][j - 1] > t[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return lcs


def union_lcs(ref, can_list):
    indices = set()
    for c in can_list:
        indices |= set(backtrack_norec(lcs_table(ref, c), ref, c))
    return [ref[i] for i in sorted(indices)]


def summary_level_lcs_f(ref_sent, can_sent):
    if not ref_sent or not can_sent:
        return 0.0
    m = sum(map(len, ref_sent))
    n = sum(map(len, can_sent))
    if not n or not m:
        return 0.0
    cnt_r, cnt_c = collections.Counter(), collections.Counter()
    for s in ref_sent:
        cnt_r.update(s)
    for s in can_sent:
        cnt_c.update(s)
    hits = 0
    for r in ref_sent:
        for t in union_lcs(r, can_sent):
            if cnt_c[t] > 0 and cnt_r[t] > 0:
                hits += 1
                cnt_c[t] -= 1
                cnt_r[t] -= 1
    recall, precision = hits / m, hits / n
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def rouge_lsum(candidate, references):
    can = [tokenize(s) for s in sentences(candidate)]
    return max(summary_level_lcs_f([tokenize(s) for s in sentences(r)], can) for r in references)


records = json.load(open(os.path.join(ROOT, 'resources/demo/asqa_dev_sample300.json'), encoding='utf8'))
items = []
for record in records[:100]:
    first, second = (a['long_answer'] for a in record['annotations'][:2])
    reversed_second = '. '.join(reversed(second.split('. ')))
    items.append({'id': record['id'], 'reversed': rouge_lsum(reversed_second, [first, second]), 'cross': rouge_lsum(first, [second])})
with open(os.path.join(ROOT, 'test/fixtures/rouge-asqa.json'), 'w', encoding='utf8') as f:
    json.dump({'items': items}, f, indent=0)
    f.write('\n')
print(len(items), 'items; mean reversed', sum(i['reversed'] for i in items) / len(items), 'mean cross', sum(i['cross'] for i in items) / len(items))
