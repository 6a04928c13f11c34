import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../electron/cli/index';
import { renderCliReference, slug } from '../../scripts/cli-reference';
import { ROOT } from '../helpers/db';

/**
 * The docs stay true to the code: the CLI reference is the commands' own definitions, and every
 * relative link (file or #anchor) in README.md and docs/ leads somewhere.
 */

const DOCS = path.join(ROOT, 'docs');
const pages = [path.join(ROOT, 'README.md'), ...fs.readdirSync(DOCS).filter((f) => f.endsWith('.md')).map((f) => path.join(DOCS, f))];

/** Markdown without its fenced code blocks and inline code, where link syntax is only text. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The anchors GitHub makes for a page's headings (a repeated heading gets -1, -2, ...). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  // Inline code in a heading counts for its anchor: unwrap it before code is stripped.
  const unwrapped = markdown.replace(/^(#{1,6}\s+.*)$/gm, (line) => line.replace(/`([^`]*)`/g, '$1'));
  for (const [, heading] of prose(unwrapped).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = heading!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = slug(text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

describe('the docs', () => {
  it('docs/cli.md is generated from the commands (run `npm run docs:cli` after changing one)', () => {
    const committed = fs.readFileSync(path.join(DOCS, 'cli.md'), 'utf8');
    expect(committed).toBe(renderCliReference(buildProgram()));
  });

  it('every command and option of awb appears in docs/cli.md', () => {
    const committed = fs.readFileSync(path.join(DOCS, 'cli.md'), 'utf8');
    const leaves = (c: ReturnType<typeof buildProgram>): ReturnType<typeof buildProgram>[] => c.commands.flatMap((x) => (x.commands.length > 0 ? leaves(x) : [x]));
    const commands = leaves(buildProgram());
    expect(commands.length).toBeGreaterThan(50);
    const sections = new Map(committed.split(/^## /m).map((s) => [s.split('\n')[0]!, s]));
    for (const command of commands) {
      const names: string[] = [];
      for (let c: typeof command | null = command; c; c = c.parent) names.unshift(c.name());
      const name = names.join(' ');
      const section = sections.get(name);
      expect(section, name).toBeDefined();
      for (const option of command.options) if (!['--db', '--json'].includes(option.long!)) expect(section, `${name} ${option.flags}`).toContain(`\`${option.flags}\``);
    }
  });

  it('README.md stays a short front door', () => {
    expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(250);
  });

  it('every relative link in README.md and docs/*.md resolves, anchors included', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      const text = fs.readFileSync(page, 'utf8');
      for (const link of links(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // http:, https:, mailto:
        checked++;
        const [file, anchor] = link.split('#') as [string, string | undefined];
        const target = file === '' ? page : path.resolve(path.dirname(page), decodeURIComponent(file));
        const where = `${path.relative(ROOT, page)}: ${link}`;
        if (!fs.existsSync(target)) broken.push(`${where} (no such file)`);
        else if (anchor !== undefined && !(target.endsWith('.md') && anchors(fs.readFileSync(target, 'utf8')).has(anchor))) broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });

  it('finds a broken link and a missing anchor (the check bites)', () => {
    const page = '# Title\n\n## A `code` heading\n\n[ok](#a-code-heading) [bad](#nowhere) `[not a link](#x)`\n';
    expect(links(page)).toEqual(['#a-code-heading', '#nowhere']);
    expect([...anchors(page)]).toEqual(['title', 'a-code-heading']);
  });
});
