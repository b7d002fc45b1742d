/**
 * Synthetic JSON:API compound documents for benchmarks: N articles, each
 * with a to-one author shared by 10 articles and 3 comments with their own
 * authors, all in `included`.
 *
 * @module
 */

/** A compound document of `n` articles. */
export function compoundDocument(n: number): Record<string, unknown> {
  const data = [];
  const included = [];
  const authors = Math.ceil(n / 10);
  for (let a = 0; a < authors; a++) {
    included.push({
      type: "people",
      id: `p${a}`,
      attributes: {
        first_name: `First${a}`,
        last_name: `Last${a}`,
        twitter_handle: `@p${a}`,
      },
    });
  }
  for (let i = 0; i < n; i++) {
    const comments = [];
    for (let c = 0; c < 3; c++) {
      const id = `c${i}-${c}`;
      comments.push({ type: "comments", id });
      included.push({
        type: "comments",
        id,
        attributes: {
          body_text: `Comment ${c} on ${i}`,
          created_at: "2026-01-01T00:00:00Z",
        },
        relationships: {
          author: { data: { type: "commenters", id: `u${i}-${c}` } },
        },
      });
      included.push({
        type: "commenters",
        id: `u${i}-${c}`,
        attributes: { display_name: `User ${i}.${c}` },
      });
    }
    data.push({
      type: "articles",
      id: `a${i}`,
      attributes: {
        title: `Article ${i}`,
        word_count: 100 + i,
        published_at: "2026-01-01T00:00:00Z",
        reading_stats: { average_seconds: 42, total_reads: i },
      },
      relationships: {
        author: { data: { type: "people", id: `p${Math.floor(i / 10)}` } },
        comments: { data: comments },
      },
      links: { self: `/articles/a${i}` },
    });
  }
  return { data, included, meta: { total: n } };
}
