import type { ReactNode } from 'react';

/**
 * Renders the dataset card: the small part of Markdown it uses (headings, paragraphs, tables,
 * lists, quotes, fenced code, **bold** and `code`), as React elements, never as HTML strings. The
 * YAML front matter is shown folded, as the Hub does.
 */

function inline(text: string, key: string): ReactNode[] {
  const out: ReactNode[] = [];
  const pattern = /(\*\*[^*]+\*\*|`[^`]+`)/g;
  let last = 0;
  let n = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const token = m[0];
    out.push(token.startsWith('**') ? <strong key={`${key}-${n++}`}>{token.slice(2, -2)}</strong> : <code key={`${key}-${n++}`}>{token.slice(1, -1)}</code>);
    last = m.index + token.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'));
}

export function Markdown({ text }: { text: string }) {
  let body = text;
  let front: string | null = null;
  if (body.startsWith('---\n')) {
    const end = body.indexOf('\n---\n', 4);
    if (end !== -1) {
      front = body.slice(4, end);
      body = body.slice(end + 5);
    }
  }
  const lines = body.split('\n');
  const blocks: ReactNode[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const key = `b${i}`;
    if (!line.trim()) {
      i++;
      continue;
    }
    const heading = /^(#{1,4}) (.*)$/.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      const content = inline(heading[2]!, key);
      blocks.push(level === 1 ? <h1 key={key}>{content}</h1> : level === 2 ? <h2 key={key}>{content}</h2> : <h3 key={key}>{content}</h3>);
      i++;
    } else if (line.startsWith('```')) {
      const code: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.startsWith('```')) code.push(lines[i++]!);
      i++;
      blocks.push(<pre key={key}>{code.join('\n')}</pre>);
    } else if (line.startsWith('|')) {
      const rows: string[][] = [];
      let align: ('l' | 'r')[] = [];
      while (i < lines.length && lines[i]!.startsWith('|')) {
        const row = cells(lines[i]!);
        if (row.every((c) => /^:?-+:?$/.test(c))) align = row.map((c) => (c.endsWith(':') ? 'r' : 'l'));
        else rows.push(row);
        i++;
      }
      const [head, ...rest] = rows;
      blocks.push(
        <table key={key} className="plain compact numbers">
          <thead>
            <tr>{head?.map((c, k) => <th key={k} className={align[k] === 'r' ? 'num' : undefined}>{inline(c, `${key}h${k}`)}</th>)}</tr>
          </thead>
          <tbody>
            {rest.map((r, rk) => (
              <tr key={rk}>{r.map((c, k) => <td key={k} className={align[k] === 'r' ? 'num' : undefined}>{inline(c, `${key}-${rk}-${k}`)}</td>)}</tr>
            ))}
          </tbody>
        </table>,
      );
    } else if (line.startsWith('- ')) {
      const items: string[] = [];
      while (i < lines.length && lines[i]!.startsWith('- ')) items.push(lines[i++]!.slice(2));
      blocks.push(<ul key={key}>{items.map((item, k) => <li key={k}>{inline(item, `${key}-${k}`)}</li>)}</ul>);
    } else if (line.startsWith('> ')) {
      const quote: string[] = [];
      while (i < lines.length && lines[i]!.startsWith('> ')) quote.push(lines[i++]!.slice(2));
      blocks.push(<blockquote key={key} className="notice warn">{inline(quote.join(' '), key)}</blockquote>);
    } else {
      const paragraph: string[] = [];
      while (i < lines.length && lines[i]!.trim() && !/^(#|\||- |> |```)/.test(lines[i]!)) paragraph.push(lines[i++]!);
      blocks.push(<p key={key}>{inline(paragraph.join(' '), key)}</p>);
    }
  }
  return (
    <div className="release-card" data-testid="release-card" style={{ display: 'flex', flexDirection: 'column', gap: 10, paddingBottom: 12 }}>
      {front !== null ? (
        <details>
          <summary className="muted small">YAML metadata (license, configs, features)</summary>
          <pre>{front}</pre>
        </details>
      ) : null}
      {blocks}
    </div>
  );
}
