// The snapshot a panel starts from when it (re)loads (`ready`): the view model, then the same
// actions as the controller applies. The panel's outbox drops the actions queued before a
// snapshot (the snapshot holds them), so the view model must be read in the same synchronous
// step as the post: read before an `await`, it missed every action dispatched meanwhile — the
// events of a run streaming while a reloaded window opened its panel — and the panel, starting
// from an older seq, held every later event as a gap it never repairs (the webview runs no
// effects): the answer stopped where the snapshot was taken.

import type { ViewModel } from '../model/types';
import type { HostMessage, PanelSettings } from '../protocol/messages';

export async function postSnapshot(
  post: (msg: HostMessage) => void,
  state: () => ViewModel,
  settings: () => Promise<PanelSettings>,
): Promise<void> {
  const s = await settings();
  post({ type: 'snapshot', vm: state(), settings: s });
}
