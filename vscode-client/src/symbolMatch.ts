// How well a symbol's name matches a typed `@query`: the host ranks the language servers'
// symbols with it, and the composer keeps the symbols of the query being extended that still
// match while the newer query's answer is on the way. Pure.

/** Lower is better; undefined: no match. Exact, then prefix (case kept before case ignored),
 * then a substring, then the query's characters in order. */
export function matchRank(name: string, query: string): number | undefined {
  const n = name.toLowerCase();
  const q = query.toLowerCase();
  if (name === query) return 0;
  if (n === q) return 1;
  if (name.startsWith(query)) return 2;
  if (n.startsWith(q)) return 3;
  if (n.includes(q)) return 4;
  let i = 0;
  for (const ch of n) if (ch === q[i]) i += 1;
  return i >= q.length ? 5 : undefined;
}
