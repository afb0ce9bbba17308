// Walking the pending review hunks (docs/protocol.md §9): which hunk is "at" the cursor, which is
// next / previous across files. Pure, so the keybindings' behaviour is unit-tested.

import type { Hunk, ReviewFile } from './types';

export interface HunkRef {
  uri: string;
  hunk: Hunk;
}

/** The hunk containing `line` in `uri`, else the next one after it in that file, else its first. */
export function hunkAt(files: ReviewFile[], uri: string, line: number): HunkRef | undefined {
  const file = files.find((f) => f.uri === uri);
  if (!file || file.hunks.length === 0) return undefined;
  const inside = file.hunks.find((h) => h.range.start.line <= line && line <= Math.max(h.range.end.line, h.range.start.line));
  const after = file.hunks.find((h) => h.range.start.line >= line);
  return { uri, hunk: inside ?? after ?? file.hunks[0] };
}

/** The next (dir 1) or previous (dir -1) hunk from the cursor, across files, wrapping around. */
export function stepHunk(files: ReviewFile[], uri: string | undefined, line: number, dir: 1 | -1): HunkRef | undefined {
  const flat: HunkRef[] = files.flatMap((f) =>
    f.hunks.slice().sort((a, b) => a.range.start.line - b.range.start.line).map((hunk) => ({ uri: f.uri, hunk })),
  );
  if (flat.length === 0) return undefined;
  const fileIdx = (u: string) => files.findIndex((f) => f.uri === u);
  const cur = uri === undefined ? -1 : fileIdx(uri);
  if (dir === 1) {
    const here = flat.find((x) => x.uri === uri && x.hunk.range.start.line > line);
    if (here) return here;
    return flat.find((x) => fileIdx(x.uri) > cur) ?? flat[0];
  }
  const before = flat.filter((x) => x.uri === uri && x.hunk.range.start.line < line);
  if (before.length) return before[before.length - 1];
  const earlier = flat.filter((x) => cur >= 0 && fileIdx(x.uri) < cur);
  return earlier.length ? earlier[earlier.length - 1] : flat[flat.length - 1];
}
