// The rig's one-off lines (a camera lost, a clock unlocked…), newest first, as the
// terminal prints them. Kept short: it is a glance, not a log file.

const MAX_NOTICES = 50;

const list = document.getElementById('notices');
const empty = document.getElementById('no-notices');
const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

export function addNoticeLine(text) {
  const item = document.createElement('li');
  const when = document.createElement('time');
  const now = new Date();
  when.dateTime = now.toISOString();
  when.textContent = time.format(now);
  const line = document.createElement('span');
  line.textContent = text;
  item.append(when, line);
  list.prepend(item);
  while (list.children.length > MAX_NOTICES) list.lastElementChild.remove();
  empty.hidden = true;
  markMore();
}

/** Whether lines are hidden below the list's bottom edge (it fades out then). */
function markMore() {
  list.dataset.more = String(list.scrollTop + list.clientHeight < list.scrollHeight - 1);
}
list.addEventListener('scroll', markMore, { passive: true });
