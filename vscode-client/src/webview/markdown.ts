// Markdown for model output: markdown-it (raw HTML off), DOMPurify on the result, highlight.js
// core with a handful of languages. Streaming text is split into segments at blank lines
// outside code fences, so only the last (growing) segment is re-rendered per frame.

import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import MarkdownIt from 'markdown-it';

const LANGS = { bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, rust, typescript, xml, yaml };
for (const [name, def] of Object.entries(LANGS)) hljs.registerLanguage(name, def);
const ALIASES: Record<string, string> = {
  sh: 'bash',
  shell: 'bash',
  console: 'bash',
  zsh: 'bash',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  ts: 'typescript',
  tsx: 'typescript',
  py: 'python',
  rs: 'rust',
  html: 'xml',
  yml: 'yaml',
  md: 'markdown',
  'c++': 'cpp',
  h: 'c',
  hpp: 'cpp',
  golang: 'go',
  patch: 'diff',
};

const MAX_HIGHLIGHT = 30_000;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string);
}

const md = new MarkdownIt({
  html: false,
  linkify: true,
  breaks: false,
  highlight(code, info) {
    const lang = ALIASES[info.toLowerCase()] ?? info.toLowerCase();
    if (lang && hljs.getLanguage(lang) && code.length <= MAX_HIGHLIGHT) {
      try {
        return `<pre class="code"><code class="hljs language-${escapeHtml(lang)}">${hljs.highlight(code, { language: lang, ignoreIllegals: true }).value}</code></pre>`;
      } catch {
        // fall through to plain
      }
    }
    return `<pre class="code"><code class="hljs">${escapeHtml(code)}</code></pre>`;
  },
});

// Links open through VS Code (the host decides); never run `javascript:` and friends.
md.validateLink = (url: string) => /^(https?:|mailto:|#)/i.test(url.trim()) || !/^[a-z][a-z0-9+.-]*:/i.test(url.trim());

const PURIFY = {
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i,
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'img', 'svg', 'math'],
  FORBID_ATTR: ['style', 'srcset'],
};

export function renderMarkdown(src: string): string {
  return DOMPurify.sanitize(md.render(src), PURIFY) as unknown as string;
}

/**
 * Split text into segments at blank lines that are outside fenced code blocks. Joining the
 * segments with "\n\n" restores the text's meaning for Markdown; every segment but the last
 * is final while the text grows at its end.
 */
export function segments(text: string): string[] {
  const out: string[] = [];
  const lines = text.split('\n');
  let cur: string[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (fence === null) fence = m[1][0].repeat(m[1].length);
      else if (line.trim().startsWith(fence)) fence = null;
    }
    const next = lines[i + 1];
    const continues = next !== undefined && /^[ \t]/.test(next);
    if (fence === null && line.trim() === '' && !continues && cur.some((l) => l.trim() !== '')) {
      // Indented continuations (list items, code) stay with what precedes them.
      out.push(cur.join('\n'));
      cur = [];
      continue;
    }
    cur.push(line);
  }
  if (cur.length > 0) out.push(cur.join('\n'));
  return out;
}
