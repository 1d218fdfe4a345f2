(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var games = data.games, lines = data.lines;
  var viewer = document.getElementById("viewer");
  if (!viewer || !games.length) return;
  function $(id) { return document.getElementById(id); }
  var boardBox = $("board"), moveList = $("move-list"), movesCol = moveList.closest(".moves-col");
  var index = 0, ply = 0, rows = [];

  // A picture is runs (first, count, first, count, ...) of the shared line table; joined, it
  // is State.svg's text.
  function picture(runs) {
    var out = [];
    for (var r = 0; r < runs.length; r += 2)
      for (var i = runs[r]; i < runs[r] + runs[r + 1]; i++) out.push(lines[i]);
    return out.join("\n").replace(/^<\?xml[^>]*>\s*/, "");
  }
  function text(tag, content, cls) {
    var el = document.createElement(tag);
    if (content !== undefined && content !== null) el.textContent = content;
    if (cls) el.className = cls;
    return el;
  }
  function timeText(ms) {
    if (ms === null || ms === undefined) return "";
    return ms < 1000 ? ms + " ms" : (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + " s";
  }
  function sideName(g, side) {
    var names = g.sides || ["P1", "P2"];
    return names[side] + " (" + (side === 0 ? g.p1 : g.p2) + ")";
  }
  function mover(g, i) {
    return g.movers ? g.movers[i] : (g.start_side + i) % 2;
  }

  function load(i, where) {
    index = Math.max(0, Math.min(games.length - 1, i));
    var g = games[index];
    viewer.dataset.game = String(g.id);
    var title = $("game-title");
    title.textContent = "Game " + (g.id + 1) + ": " + g.p1 + " \u2013 " + g.p2;
    title.appendChild(text("span", g.result, "badge"));
    $("game-sub").textContent = g.why + " \u00b7 " + g.variant + (g.tc ? " \u00b7 " + g.tc : "") +
      (g.opening ? " \u00b7 opening " + g.opening : "");
    var notes = $("game-notes");
    notes.textContent = "";
    for (var n = 0; n < g.notes.length; n++) notes.appendChild(text("li", g.notes[n]));
    boardBox.hidden = !g.boards;
    var none = $("no-board");
    none.hidden = !!g.boards;
    none.textContent = g.boards ? "" : "No board: " + g.no_board + ".";
    moveList.textContent = "";
    rows = [];
    var start = text("tr", null, "start");
    start.appendChild(text("td", "", "num"));
    start.appendChild(text("td", "start"));
    start.appendChild(text("td", "\u2014", "move"));
    start.appendChild(text("td", "", "num"));
    start.appendChild(text("td", "", "num"));
    start.dataset.ply = "0";
    moveList.appendChild(start);
    rows.push(start);
    var moveNo = 1;
    for (var p = 0; p < g.plies.length; p++) {
      var m = g.plies[p], side = mover(g, p);
      var tr = text("tr", null, m[3] ? "book" : "");
      tr.dataset.ply = String(p + 1);
      tr.appendChild(text("td", side === 0 || p === 0 ? moveNo + (side === 0 ? "." : "\u2026") : "", "num"));
      tr.appendChild(text("td", (g.sides || ["P1", "P2"])[side]));
      tr.appendChild(text("td", m[0], "move"));
      tr.appendChild(text("td", m[3] ? "book" : m[2], "num"));
      tr.appendChild(text("td", timeText(m[1]), "num"));
      if (side === 1) moveNo++;
      moveList.appendChild(tr);
      rows.push(tr);
    }
    var end = text("tr", null, "end");
    var cell = text("td", g.result + "  " + g.why);
    cell.colSpan = 5;
    end.appendChild(cell);
    moveList.appendChild(end);
    var selected = document.querySelector("#games-table tr.selected");
    if (selected) selected.classList.remove("selected");
    var row = $("game-row-" + g.id);
    if (row) row.classList.add("selected");
    $("prev-game").disabled = index === 0;
    $("next-game").disabled = index === games.length - 1;
    go(where === "end" ? g.plies.length : 0);
  }

  function go(p) {
    var g = games[index];
    ply = Math.max(0, Math.min(g.plies.length, p));
    viewer.dataset.ply = String(ply);
    if (g.boards) {
      boardBox.innerHTML = picture(g.boards[ply]);
      $("position").textContent = g.fens[ply];
    } else {
      $("position").textContent = "";
    }
    for (var r = 0; r < rows.length; r++) rows[r].classList.toggle("current", r === ply);
    var label;
    if (ply === 0) label = "Start";
    else label = "Ply " + ply + " of " + g.plies.length + ": " + g.plies[ply - 1][0];
    if (ply === g.plies.length && ply > 0) label += " \u00b7 " + g.result;
    $("ply-label").textContent = label;
    $("first").disabled = $("prev").disabled = ply === 0;
    $("next").disabled = $("last").disabled = ply === g.plies.length;
    // Keep the current move in view inside the list without scrolling the page.
    var row = rows[ply], top = row.offsetTop - movesCol.clientHeight / 2 + row.offsetHeight;
    movesCol.scrollTop = Math.max(0, top);
  }

  $("first").addEventListener("click", function () { go(0); });
  $("prev").addEventListener("click", function () { go(ply - 1); });
  $("next").addEventListener("click", function () { go(ply + 1); });
  $("last").addEventListener("click", function () { go(games[index].plies.length); });
  $("prev-game").addEventListener("click", function () { load(index - 1); });
  $("next-game").addEventListener("click", function () { load(index + 1); });
  moveList.addEventListener("click", function (event) {
    var tr = event.target.closest("tr");
    if (tr && tr.dataset.ply !== undefined) go(Number(tr.dataset.ply));
  });
  var table = $("games-table");
  function pick(event) {
    var tr = event.target.closest("tr[data-index]");
    if (!tr) return;
    load(Number(tr.dataset.index));
    history.replaceState(null, "", "#game-" + games[index].id);
    viewer.scrollIntoView({ block: "start" });
  }
  // The keys act on the viewer only while it is on screen: elsewhere they scroll the page.
  function onScreen() {
    var box = viewer.getBoundingClientRect();
    return box.bottom > 0 && box.top < window.innerHeight;
  }
  table.addEventListener("click", pick);
  table.addEventListener("keydown", function (event) { if (event.key === "Enter") pick(event); });
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select" || !onScreen()) return;
    var keys = {
      ArrowRight: function () { go(ply + 1); },
      ArrowLeft: function () { go(ply - 1); },
      Home: function () { go(0); },
      End: function () { go(games[index].plies.length); },
      n: function () { load(index + 1); },
      p: function () { load(index - 1); }
    };
    if (keys[event.key]) { keys[event.key](); event.preventDefault(); }
  });
  var start = 0, match = /^#game-(\d+)$/.exec(location.hash);
  if (match) for (var i = 0; i < games.length; i++) if (games[i].id === Number(match[1])) start = i;
  load(start);
  if (match) viewer.scrollIntoView({ block: "start" });
})();
