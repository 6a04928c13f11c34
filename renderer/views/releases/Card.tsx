import Markdown from 'react-markdown';
import remarkGfm from 'remark-gfm';

/**
 * The dataset card as it will be (or was) published, through react-markdown with remark-gfm for
 * its tables, never as an HTML string. The YAML front matter the Hub reads is shown folded.
 */

/** The card's YAML front matter and its Markdown body. */
export function splitFrontMatter(text: string): { frontMatter: string | null; body: string } {
  if (!text.startsWith('---\n')) return { frontMatter: null, body: text };
  const end = text.indexOf('\n---\n', 4);
  return end === -1 ? { frontMatter: null, body: text } : { frontMatter: text.slice(4, end), body: text.slice(end + 5) };
}

export function Card({ text }: { text: string }) {
  const { frontMatter, body } = splitFrontMatter(text);
  return (
    <div className="release-card markdown" data-testid="release-card">
      {frontMatter !== null ? (
        <details>
          <summary className="muted small">YAML metadata (license, configs, features)</summary>
          <pre>{frontMatter}</pre>
        </details>
      ) : null}
      <Markdown
        remarkPlugins={[remarkGfm]}
        components={{
          table: ({ node: _node, ...props }) => <table className="plain compact numbers" {...props} />,
          blockquote: ({ node: _node, ...props }) => <blockquote className="notice warn" {...props} />,
        }}
      >
        {body}
      </Markdown>
    </div>
  );
}
