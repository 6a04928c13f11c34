/**
 * Licences of a release and its sources. Source licences are free text as datasets record them
 * ("CC BY-SA 3.0", "Apache 2.0"); they are read into SPDX ids where possible. A share-alike
 * source (AmbigNQ, hence ASQA's questions, are CC BY-SA 3.0) makes the release share-alike; a
 * non-commercial one makes it non-commercial; a no-derivatives one cannot be released at all.
 */

export interface LicenceTerms {
  spdx: string | null;
  shareAlike: boolean;
  nonCommercial: boolean;
  noDerivatives: boolean;
  /** Creative Commons version, e.g. 3 or 4 (of the share-alike licence when there is one). */
  version: number | null;
  /** When a string names several licences: the share-alike one, if it is not the first. */
  shareAlikeSpdx?: string | null;
}

const PERMISSIVE: Record<string, string> = {
  mit: 'MIT',
  'apache 2.0': 'Apache-2.0',
  'apache-2.0': 'Apache-2.0',
  'apache license 2.0': 'Apache-2.0',
  'cc0 1.0': 'CC0-1.0',
  'cc0-1.0': 'CC0-1.0',
  cc0: 'CC0-1.0',
  'odc-by': 'ODC-By-1.0',
  'odc-by-1.0': 'ODC-By-1.0',
  'bsd-3-clause': 'BSD-3-Clause',
};

const CC = /(?:\bcc|creative commons)[ -]?(by(?:[ -](?:sa|nc|nd))*)(?:[ -]?(\d(?:\.\d)?))?/g;

function ccTerms(parts: string[], version: number | null): LicenceTerms {
  const v = version ?? 4;
  return {
    spdx: `CC-${parts.map((p) => p.toUpperCase()).join('-')}-${v.toFixed(1)}`,
    shareAlike: parts.includes('sa'),
    nonCommercial: parts.includes('nc'),
    noDerivatives: parts.includes('nd'),
    version: v,
  };
}

/**
 * Reads a licence string; unknown text gives `spdx: null`. A string may name more than one
 * licence ("Apache-2.0 (questions derive from AmbigNQ, CC BY-SA 3.0)"): the first is its `spdx`,
 * and the terms of every one found apply (share-alike from any of them), with the version of the
 * share-alike one.
 */
export function readLicence(text: string): LicenceTerms {
  const t = ` ${text.trim().toLowerCase().replace(/[_\s]+/g, ' ').replace(/attribution/g, 'by').replace(/sharealike|share-alike/g, 'sa')} `;
  const none: LicenceTerms = { spdx: null, shareAlike: false, nonCommercial: false, noDerivatives: false, version: null };
  if (!t.trim()) return none;
  const found: { at: number; terms: LicenceTerms }[] = [];
  for (const m of t.matchAll(CC)) found.push({ at: m.index ?? 0, terms: ccTerms(m[1]!.split(/[ -]/), m[2] ? Number(m[2]) : null) });
  const odbl = /\bodbl\b/.exec(t);
  if (odbl) found.push({ at: odbl.index, terms: { ...none, spdx: 'ODbL-1.0', shareAlike: true, version: 1 } });
  for (const [name, spdx] of Object.entries(PERMISSIVE)) {
    const at = t.indexOf(` ${name}`);
    const end = at + name.length + 1;
    if (at !== -1 && !/[a-z0-9]/.test(t[end] ?? ' ')) found.push({ at, terms: { ...none, spdx } });
  }
  if (!found.length) return none;
  found.sort((a, b) => a.at - b.at);
  const first = found[0]!.terms;
  const sa = found.find((f) => f.terms.shareAlike)?.terms;
  return {
    spdx: first.spdx,
    shareAlike: found.some((f) => f.terms.shareAlike),
    nonCommercial: found.some((f) => f.terms.nonCommercial),
    noDerivatives: found.some((f) => f.terms.noDerivatives),
    version: sa?.version ?? first.version,
    ...(sa && sa !== first ? { shareAlikeSpdx: sa.spdx } : {}),
  };
}

export interface SourceLicence {
  dataset: string;
  licence: string;
  attribution: string;
  url: string;
}

export interface LicenceCheck {
  /** The release's licence (SPDX), as asked for or as chosen from the sources. */
  licence: string;
  shareAlike: boolean;
  /** False when the release licence contradicts a source's terms. */
  compatible: boolean;
  problems: string[];
  /** Sources whose licence could not be read (they are listed in the card as recorded). */
  unknown: string[];
}

/** The Hugging Face card's `license:` id for an SPDX id. */
export function hubLicenceId(spdx: string): string {
  const special: Record<string, string> = { 'ODbL-1.0': 'odbl', 'ODC-By-1.0': 'odc-by' };
  if (special[spdx]) return special[spdx];
  const id = spdx.toLowerCase();
  return /^cc-by(-nc)?(-sa|-nd)?-\d\.\d$/.test(id) || ['mit', 'apache-2.0', 'cc0-1.0', 'bsd-3-clause'].includes(id) ? id : 'other';
}

/**
 * Checks a requested release licence against the sources, or picks one: the strongest terms any
 * source imposes (share-alike, non-commercial), at the highest Creative Commons version among
 * them (a BY-SA 3.0 adaptation may be shared under BY-SA 4.0).
 */
export function checkLicence(sources: readonly SourceLicence[], requested: string | null): LicenceCheck {
  const terms = sources.map((s) => ({ source: s, terms: readLicence(s.licence) }));
  const shareAlike = terms.some((t) => t.terms.shareAlike);
  const nonCommercial = terms.some((t) => t.terms.nonCommercial);
  const unknown = terms.filter((t) => t.terms.spdx === null).map((t) => t.source.dataset);
  const ccVersions = terms.map((t) => (t.terms.spdx?.startsWith('CC-BY') || t.terms.shareAlikeSpdx ? t.terms.version : null)).filter((v): v is number => v !== null);
  const problems: string[] = [];
  for (const t of terms) {
    if (t.terms.noDerivatives) problems.push(`${t.source.dataset} is ${t.terms.spdx}: no derivatives may be shared`);
  }
  const odbl = terms.some((t) => t.terms.spdx === 'ODbL-1.0');
  let licence: string;
  if (requested) {
    licence = readLicence(requested).spdx ?? requested;
    const asked = readLicence(requested);
    for (const t of terms) {
      if (t.terms.shareAlike && t.terms.spdx !== 'ODbL-1.0') {
        const sameFamily = asked.shareAlike && asked.spdx?.startsWith('CC-BY') && asked.nonCommercial === t.terms.nonCommercial;
        if (!sameFamily || (asked.version ?? 0) < (t.terms.version ?? 0)) {
          const sa = t.terms.shareAlikeSpdx ?? t.terms.spdx;
          problems.push(`${t.source.dataset} is ${sa} (share-alike): the release must be ${sa} or a later version of it, not ${licence}`);
        }
      } else if (t.terms.spdx === 'ODbL-1.0' && licence !== 'ODbL-1.0') {
        problems.push(`${t.source.dataset} is ODbL-1.0 (share-alike): the release must be ODbL-1.0, not ${licence}`);
      } else if (t.terms.nonCommercial && !asked.nonCommercial) {
        problems.push(`${t.source.dataset} is ${t.terms.spdx} (non-commercial): the release must be non-commercial too, not ${licence}`);
      }
    }
  } else if (odbl) {
    licence = 'ODbL-1.0';
  } else if (ccVersions.length || shareAlike || nonCommercial) {
    const version = Math.max(4, ...ccVersions).toFixed(1);
    licence = `CC-BY${nonCommercial ? '-NC' : ''}${shareAlike ? '-SA' : ''}-${version}`;
  } else {
    licence = terms.length && terms.every((t) => t.terms.spdx === terms[0]!.terms.spdx && t.terms.spdx) ? terms[0]!.terms.spdx! : 'CC-BY-4.0';
  }
  return { licence, shareAlike: shareAlike || readLicence(licence).shareAlike, compatible: problems.length === 0, problems, unknown };
}
