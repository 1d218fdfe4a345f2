// zengine gui: the page. It draws what the server pushes and sends requests; it knows no
// rule of any game (the server sends the legal moves and what each is clicked as).
const token = new URLSearchParams(location.search).get('token') || '';
const $ = (id) => document.getElementById(id);
let ws = null;
let state = null;       // the last state pushed
let selection = [];     // what was clicked so far towards a move
let formFilled = false; // the forms are filled from the first state only (edits are kept)
let clockBase = null;   // [ms, ms, side running, time received]

function send(message) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
}

function connect() {
  ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws?token=${encodeURIComponent(token)}`);
  ws.onmessage = (event) => receive(JSON.parse(event.data));
  ws.onclose = () => {
    $('status').textContent = 'disconnected from the server';
    setTimeout(connect, 1000);
  };
}

function receive(message) {
  if (message.type === 'state') { $('error').textContent = ''; render(message); }
  else if (message.type === 'lines') renderLines(message);
  else if (message.type === 'error') $('error').textContent = message.text;
  else if (message.type === 'pgn') download(message.text);
  else if (message.type === 'watch') renderWatch(message);
}

// --- the game -----------------------------------------------------------------------------
function render(s) {
  state = s;
  $('game').hidden = false;
  $('watch').hidden = true;
  selection = [];
  const svg = s.svg.replace(/^<\?xml[^>]*>\s*/, '');
  $('board').innerHTML = svg;
  $('position').textContent = s.position;
  $('status').textContent = s.status;
  $('fault').textContent = s.fault || '';
  $('note').textContent = s.note || '';
  const moves = $('moves');
  moves.replaceChildren(...s.moves.map((move, i) => {
    const li = document.createElement('li');
    li.dataset.ply = String(i + 1);
    const number = Math.floor(i / 2) + 1;
    li.textContent = `${number}${i % 2 ? '…' : '.'} ${move.text}`;
    if (move.score) li.title = `${move.score}${move.depth ? ' depth ' + move.depth : ''}`;
    if (i + 1 === s.view) li.className = 'current';
    li.addEventListener('click', () => send({ type: 'view', ply: i + 1 }));
    return li;
  }));
  const current = moves.querySelector('.current');
  if (current && s.view === s.moves.length) current.scrollIntoView({ block: 'nearest' });
  $('pass').hidden = !(s.picks && s.picks.some((p) => !p.stone && p.squares.length === 0));
  $('pause').textContent = s.paused ? 'Go on' : 'Pause';
  $('pause').hidden = s.mode !== 'watch';
  clockBase = s.clocks ? [s.clocks[0], s.clocks[1], s.running, performance.now()] : null;
  showClocks();
  if (!formFilled) fillForms(s);
  renderLines({ ply: s.lines_ply, lines: s.lines, evals: s.evals, engine: s.thinking });
  highlight();
}

function fillForms(s) {
  formFilled = true;
  const options = (select, names) => select.replaceChildren(...names.map((n) => new Option(n, n)));
  options($('variant'), s.variants);
  for (const id of ['engine1', 'engine2', 'analysis-engine']) options($(id), s.engines);
  $('variant').value = s.variant;
  $('mode').value = s.mode;
  const engines = s.players.filter((p) => p !== 'human');
  if (engines[0]) $('engine1').value = engines[0];
  if (engines[1]) $('engine2').value = engines[1];
  $('human').value = s.players[1] === 'human' && s.players[0] !== 'human' ? 'p2' : 'p1';
  const [kind, value] = Object.entries(s.limits)[0];
  $('limit-kind').value = kind;
  $('limit-value').value = value;
  $('analysis-on').checked = s.analysis.on;
  $('analysis-engine').value = s.analysis.engine;
  $('analysis-lines').value = String(s.analysis.lines);
}

function sequence(pick) {
  return (pick.stone ? ['@' + pick.stone] : []).concat(pick.squares);
}

function startsWith(list, prefix) {
  return prefix.every((x, i) => list[i] === x);
}

function clicked(target) {
  if (!state || !state.picks) return;
  let picks = state.picks.filter((p) => startsWith(sequence(p), [...selection, target]));
  if (picks.length) selection = [...selection, target];
  else {
    picks = state.picks.filter((p) => startsWith(sequence(p), [target]));
    selection = picks.length ? [target] : [];
  }
  const done = picks.find((p) => sequence(p).length === selection.length);
  if (done) {
    selection = [];
    send({ type: 'move', move: done.move, ply: state.view });
  }
  highlight();
}

function highlight() {
  const board = $('board');
  board.querySelectorAll('.target, .selected').forEach((e) => e.classList.remove('target', 'selected'));
  if (!state || !state.picks) return;
  const picks = state.picks.filter((p) => startsWith(sequence(p), selection));
  const mark = (name, cls) => {
    const found = name.startsWith('@')
      ? board.querySelectorAll(`.hand-stone[data-stone="${CSS.escape(name.slice(1))}"]`)
      : board.querySelectorAll(`[data-square="${CSS.escape(name)}"], .stone[data-point="${CSS.escape(name)}"]`);
    found.forEach((e) => {
      if (e.tagName === 'g') e.querySelectorAll('circle').forEach((c) => c.classList.add(cls));
      else e.classList.add(cls);
    });
  };
  selection.forEach((name) => mark(name, 'selected'));
  if (selection.length) {
    new Set(picks.map((p) => sequence(p)[selection.length]).filter(Boolean)).forEach((n) => mark(n, 'target'));
  }
}

function targetOf(element) {
  const stone = element.closest('.hand-stone[data-stone]');
  if (stone) return '@' + stone.getAttribute('data-stone');
  const square = element.closest('[data-square], [data-point]');
  return square ? (square.getAttribute('data-square') || square.getAttribute('data-point')) : null;
}

function showClocks() {
  for (const side of [0, 1]) {
    const el = $(`clock-p${side + 1}`);
    if (!clockBase) { el.textContent = ''; continue; }
    let ms = clockBase[side];
    if (clockBase[2] === side) ms -= performance.now() - clockBase[3];
    el.textContent = `${state.players_names[side]} ${formatMs(ms)}`;
    el.classList.toggle('running', clockBase[2] === side);
  }
}

export function formatMs(ms) {
  // As a chess clock shows it: whole seconds down, tenths under ten seconds (0:09.7, 1:05).
  const tenths = Math.floor(Math.abs(ms) / 100);
  const minutes = Math.floor(tenths / 600);
  const seconds = Math.floor((tenths % 600) / 10);
  const tail = tenths < 100 ? `.${tenths % 10}` : '';
  return `${ms < 0 ? '-' : ''}${minutes}:${String(seconds).padStart(2, '0')}${tail}`;
}

// --- analysis -----------------------------------------------------------------------------
function renderLines(message) {
  const list = $('lines');
  list.replaceChildren(...message.lines.map((line) => {
    const li = document.createElement('li');
    li.className = 'line';
    li.textContent = `${scoreText(line.score)} d${line.depth ?? '?'}  ${line.pv.join(' ')}`;
    return li;
  }));
  drawGraph(message.evals || []);
}

function scoreText(score) {
  if (!score) return '?';
  const [kind, value] = score.split(' ');
  if (kind === 'mate') return `#${value}`;
  const cp = Number(value) / 100;
  return (cp > 0 ? '+' : '') + cp.toFixed(2);
}

function drawGraph(evals) {
  const graph = $('graph');
  const n = Math.max(evals.length - 1, 1);
  const points = [];
  evals.forEach((cp, i) => {
    if (cp === null || cp === undefined) return;
    const clamped = Math.max(-1000, Math.min(1000, cp));
    points.push(`${(i / n) * 300},${40 - (clamped / 1000) * 38}`);
  });
  const dots = points.map((p) => { const [x, y] = p.split(','); return `<circle cx="${x}" cy="${y}" r="2" fill="#c33"/>`; });
  graph.innerHTML = '<line x1="0" y1="40" x2="300" y2="40" stroke="#999" stroke-width="0.5"/>' +
    (points.length ? `<polyline fill="none" stroke="#c33" stroke-width="1.5" points="${points.join(' ')}"/>` : '') +
    dots.join('');
}

// --- following a match --------------------------------------------------------------------
function renderWatch(m) {
  $('game').hidden = true;
  $('watch').hidden = false;
  $('status').textContent = m.status;
  $('watch-title').textContent = m.title;
  const table = $('standings');
  table.replaceChildren();
  const head = table.insertRow();
  for (const h of ['engine', 'games', 'points', 'score']) head.insertCell().textContent = h;
  for (const row of m.standings) {
    const tr = table.insertRow();
    for (const v of [row.name, row.games, row.points, row.percent]) tr.insertCell().textContent = String(v);
  }
  $('live-games').replaceChildren(...m.live.map((g) => {
    const div = document.createElement('div');
    div.className = 'live-game';
    div.dataset.game = String(g.id);
    const title = document.createElement('p');
    title.className = 'live-title';
    title.textContent = `game ${g.id + 1}: ${g.p1} - ${g.p2}, ply ${g.ply}`;
    const board = document.createElement('div');
    board.innerHTML = g.svg.replace(/^<\?xml[^>]*>\s*/, '');
    const info = document.createElement('p');
    info.className = 'live-info';
    info.textContent = g.sides.map((s) => `${s.name}: ${s.clock === null ? '' : formatMs(s.clock) + ' '}` +
      `${s.score ? scoreText(s.score) : ''}${s.depth ? ' d' + s.depth : ''}`).join(' | ');
    div.append(title, board, info);
    return div;
  }));
  $('finished').replaceChildren(...m.finished.map((g) => {
    const li = document.createElement('li');
    li.textContent = `${g.p1} - ${g.p2} ${g.result} (${g.reason})`;
    return li;
  }));
}

// --- controls -----------------------------------------------------------------------------
function download(text) {
  $('pgn-text').value = text;
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([text], { type: 'application/x-chess-pgn' }));
  link.download = 'zengine-game.pgn';
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

function newGame() {
  const kind = $('limit-kind').value;
  send({
    type: 'new',
    variant: $('variant').value,
    mode: $('mode').value,
    human: $('human').value,
    engines: [$('engine1').value, $('engine2').value],
    limits: { [kind]: $('limit-value').value.trim() },
    fen: $('setup-fen').value.trim(),
  });
}

function analysis() {
  send({
    type: 'analysis',
    on: $('analysis-on').checked,
    engine: $('analysis-engine').value,
    lines: Number($('analysis-lines').value) || 1,
  });
}

function view(ply) {
  if (state) send({ type: 'view', ply: Math.max(0, Math.min(state.moves.length, ply)) });
}

$('board').addEventListener('click', (event) => {
  const target = targetOf(event.target);
  if (target) clicked(target);
});
$('pass').addEventListener('click', () => {
  const pass = state && state.picks && state.picks.find((p) => !p.stone && p.squares.length === 0);
  if (pass) send({ type: 'move', move: pass.move, ply: state.view });
});
$('first').addEventListener('click', () => view(0));
$('back').addEventListener('click', () => state && view(state.view - 1));
$('forward').addEventListener('click', () => state && view(state.view + 1));
$('last').addEventListener('click', () => state && view(state.moves.length));
$('takeback').addEventListener('click', () => send({ type: 'takeback' }));
$('pause').addEventListener('click', () => send({ type: 'pause', paused: !(state && state.paused) }));
$('flip').addEventListener('click', () => $('board').classList.toggle('flipped'));
$('copy').addEventListener('click', () => navigator.clipboard && navigator.clipboard.writeText($('position').textContent));
$('new').addEventListener('click', newGame);
for (const id of ['analysis-on', 'analysis-engine', 'analysis-lines']) $(id).addEventListener('change', analysis);
$('save').addEventListener('click', () => send({ type: 'save' }));
$('load').addEventListener('click', () => send({ type: 'load', pgn: $('pgn-text').value }));
$('load-file').addEventListener('change', async (event) => {
  const file = event.target.files[0];
  if (file) { $('pgn-text').value = await file.text(); send({ type: 'load', pgn: $('pgn-text').value }); }
});
document.addEventListener('keydown', (event) => {
  if (!state || event.target.closest('input, textarea, select')) return;
  if (event.key === 'ArrowLeft') view(state.view - 1);
  if (event.key === 'ArrowRight') view(state.view + 1);
});
setInterval(() => { if (clockBase && clockBase[2] !== null) showClocks(); }, 100);
connect();
