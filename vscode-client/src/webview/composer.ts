// The input: the text area (its draft survives reloads), Send / Stop, the gesture hint (Enter
// steers, Alt+Enter queues a follow-up, Ctrl+Enter interrupts while a run streams), pasted
// images, slash commands and the completion list.

import type { WebviewMessage } from '../protocol/messages';
import { Completion } from './completion';
import { clear, h } from './dom';
import { modeBtn, planEl } from './plan';
import { queueEl } from './queue';
import { slash } from './slash';
import { app, persist, post } from './state';
import { toast } from './toasts';

type Gesture = 'steer' | 'followUp' | 'interrupt';
const LABEL: Record<Gesture, string> = { steer: 'Steer', followUp: 'Follow-up', interrupt: 'Interrupt' };
const MAX_IMAGE = 5_000_000;

export const input = h('textarea.prompt', {
  'data-testid': 'prompt',
  rows: 3,
  placeholder: 'Ask pi… (@ file, / commands, paste images)',
  'aria-label': 'Message pi',
});
const imagesEl = h('div.images', { hidden: true });
const sendBtn = h('button.primary', { 'data-testid': 'send', text: 'Send' });
const stopBtn = h('button.secondary', { 'data-testid': 'stop', text: 'Stop', title: 'Stop the run (the queue is kept)', hidden: true });
const hint = h('div.hint.muted');
export const completion = new Completion(input, saveDraft);
export const composer = h(
  'div.composer',
  {},
  planEl,
  queueEl,
  completion.el,
  imagesEl,
  input,
  h('div.composer-bar', {}, hint, h('div.buttons', {}, modeBtn, stopBtn, sendBtn)),
);
input.value = app.persisted.draft ?? '';

/** Pasted images travel with the next message (pi/prompt `images`). */
let images: { data: string; mimeType: string; name: string }[] = [];

function gestureFor(e: KeyboardEvent | null): Gesture {
  const def = app.settings.enterAction;
  if (!e) return def;
  if (e.ctrlKey || e.metaKey) return 'interrupt';
  if (e.altKey) return def === 'followUp' ? 'steer' : 'followUp';
  return def;
}

/** What paintComposer shows, for the frame loop's change check. */
export function composerDeps(): unknown[] {
  const vm = app.vm;
  return [vm.isStreaming, vm.compacting, app.settings, vm.questions.length];
}

export function paintComposer(): void {
  const vm = app.vm;
  const running = vm.isStreaming;
  stopBtn.hidden = !running;
  const g = app.settings.enterAction;
  sendBtn.textContent = running ? LABEL[g] : 'Send';
  sendBtn.title = running
    ? `${LABEL[g]}: ${g === 'steer' ? 'delivered at the next turn boundary' : g === 'followUp' ? 'delivered when the run ends' : 'stop the run and send now'}`
    : 'Send (Enter)';
  const alt = g === 'followUp' ? 'steer' : 'follow-up';
  hint.textContent = vm.questions.length > 0
    ? 'pi is asking a question: Enter answers it with this text'
    : running
    ? `Enter ${LABEL[g].toLowerCase()} · Alt+Enter ${alt} · Ctrl+Enter interrupt · Shift+Enter new line`
    : vm.compacting
      ? 'Compacting…'
      : 'Enter send · Shift+Enter new line · @ file · / commands';
  composer.dataset.running = String(running);
}

function send(gesture: Gesture): void {
  const text = input.value.trim();
  if (!text && images.length === 0) return;
  if (images.length === 0 && slash(text)) {
    input.value = '';
    saveDraft();
    completion.hide();
    return;
  }
  const msg: Extract<WebviewMessage, { type: 'send' }> = { type: 'send', text };
  if (app.vm.isStreaming) msg.deliverAs = gesture;
  if (images.length > 0) msg.images = images.map((i) => ({ data: i.data, mimeType: i.mimeType }));
  post(msg);
  input.value = '';
  images = [];
  paintImages();
  saveDraft();
  completion.hide();
}

input.addEventListener('paste', (e) => {
  const files = Array.from(e.clipboardData?.items ?? [])
    .filter((i) => i.kind === 'file' && /^image\/(png|jpeg|gif|webp)$/.test(i.type))
    .map((i) => i.getAsFile())
    .filter((f): f is File => !!f);
  if (files.length === 0) return;
  e.preventDefault();
  for (const f of files) {
    if (f.size > MAX_IMAGE) {
      toast('warning', `${f.name || 'image'} is over 5 MB; not attached.`);
      continue;
    }
    const reader = new FileReader();
    reader.onload = () => {
      const url = typeof reader.result === 'string' ? reader.result : '';
      const data = url.slice(url.indexOf(',') + 1);
      images.push({ data, mimeType: f.type, name: f.name || `image ${images.length + 1}` });
      paintImages();
    };
    reader.readAsDataURL(f);
  }
});

function paintImages(): void {
  clear(imagesEl);
  imagesEl.hidden = images.length === 0;
  images.forEach((img, i) => {
    imagesEl.append(
      h(
        'span.chip',
        { 'data-testid': 'image-chip' },
        img.name,
        h('button.icon', {
          title: 'Remove',
          text: '×',
          onclick: () => {
            images.splice(i, 1);
            paintImages();
          },
        }),
      ),
    );
  });
}

sendBtn.addEventListener('click', () => send(gestureFor(null)));
stopBtn.addEventListener('click', () => post({ type: 'stop' }));

input.addEventListener('keydown', (e) => {
  if (completion.key(e)) return;
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    send(app.vm.isStreaming ? gestureFor(e) : 'steer');
  }
});

input.addEventListener('input', () => {
  saveDraft();
  completion.update();
});

/** The host's `insert` (a selection, a mention): at the cursor, space-separated. */
export function insertAtCursor(text: string): void {
  const start = input.selectionStart ?? input.value.length;
  const end = input.selectionEnd ?? start;
  const pre = input.value.slice(0, start);
  const sep = pre && !/\s$/.test(pre) ? ' ' : '';
  input.value = pre + sep + text + input.value.slice(end);
  const pos = pre.length + sep.length + text.length;
  input.setSelectionRange(pos, pos);
  saveDraft();
}

/** The host's `setInput` (restore conversation puts the message back; a prompt that could
 * not be sent comes back before what was typed since, `keepDraft`). */
export function setInput(text: string, keepDraft = false): void {
  const draft = keepDraft ? input.value.trim() : '';
  input.value = draft && draft !== text ? `${text}\n${draft}` : text;
  saveDraft();
  input.focus();
}

function saveDraft(): void {
  persist({ draft: input.value });
}
