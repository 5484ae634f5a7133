// hive-web page: draws what the server sends, never computes a rule itself.
// Legal moves (with their from/to cells) come from the API; a click only picks one of them.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const R = 30; // hex radius in SVG units
const SQ3 = Math.sqrt(3);
const BUG_COLOURS = { Q: "#d4a017", S: "#8b5a2b", B: "#7b4bb0", G: "#2e8b3a", A: "#2a6fc9", M: "#888888", L: "#c0392b", P: "#16a0a0" };

const $ = (id) => document.getElementById(id);
const ui = {
  players: [],          // the opponents GET /api/players lists: {id, label, kind}
  bugs: {},             // bug kinds by letter, from GET /api/bugs: {letter, name, count, expansion, rule}
  sideNames: {},        // side names by colour ("white" -> "White"), from GET /api/bugs
  game: null,           // latest live state from the server
  view: null,           // state on screen (live, or an earlier ply)
  target: null,         // the ply being browsed to (runs ahead of the view on quick key presses); null: none
  selected: null,       // {piece} of the picked tile
  flipped: false,       // Black at the bottom
  suppressClick: false, // a drag just ended: the click it makes is not a board click
  watching: false,      // the Watch mode: engines play both sides
  paused: false,        // a watched game is paused
  loopToken: 0,         // bumped to stop the running engine loop (runEngines)
  thinking: false,      // an engine move is being asked for (shown in the status line)
  analysis: null,       // the last analysis, with the gameId it is for
  review: null,         // the finished review of this game: {gameId, plies, scores, sims, model}
  reviewing: false,     // a review is running or queued
  reviewToken: 0,       // bumped to drop the answers of an abandoned review
  zoom: { x: 0, y: 0, k: 1 }, // board pan (x, y) and scale (k)
  clock: null,          // the live game's clock as of its last answer, with when it came (performance.now())
  flagAsked: false,     // the server was asked to declare a person's loss on time since its last answer
  hint: null,           // the last hint: {gameId, ply, move: {move, piece, from, to, pass}}
  games: [],            // the client's own games, from GET /api/games
  letters: localStorage.getItem("hive-web.letters") === "1",   // letters on the tiles, not bug glyphs
  patterns: localStorage.getItem("hive-web.patterns") === "1", // a pattern per side (colour-blind)
};
const MARK_SIGNS = { inaccuracy: "?!", mistake: "?", blunder: "??" };

// ----- server ----------------------------------------------------------------------------
let busy = 0;
function setBusy(delta) {
  busy += delta;
  document.body.dataset.busy = busy > 0 ? "1" : "0";
}

async function api(method, path, body) {
  setBusy(1);
  try {
    const opts = { method, headers: {} };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    const res = await fetch(path, opts);
    const data = res.status === 204 ? null : await res.json();
    if (!res.ok) throw new Error(data && data.detail ? data.detail : `HTTP ${res.status}`);
    hideError();
    return data;
  } finally {
    setBusy(-1);
  }
}

function showError(msg) { const e = $("error"); e.textContent = msg; e.hidden = false; }
function hideError() { $("error").hidden = true; }

// ----- geometry --------------------------------------------------------------------------
function pixel(cell) {
  const [q, r] = cell;
  const s = ui.flipped ? -1 : 1;
  return [s * R * SQ3 * (q + r / 2), s * R * 1.5 * r];
}
function hexPoints(cx, cy, radius) {
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = Math.PI / 180 * (60 * i - 30);
    pts.push(`${(cx + radius * Math.cos(a)).toFixed(1)},${(cy + radius * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(" ");
}
const key = (cell) => cell ? `${cell[0]},${cell[1]}` : "reserve";
function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// A tile: its hexagon, and its bug as a glyph (the sprite's #bug-X in index.html) or, with the
// Letters option, as its letter; a number when its kind has several copies.
function drawTileFace(g, cx, cy, tile, radius = R - 2) {
  el("polygon", { class: "hex", points: hexPoints(cx, cy, radius) }, g);
  const numbered = tile.number > 1 || ui.bugs[tile.bug].count > 1;
  const numFill = tile.colour === "white" ? "#555" : "#ccc";
  if (ui.letters) {
    const t = el("text", { class: "letter", x: cx, y: cy - 1, fill: BUG_COLOURS[tile.bug], "font-size": radius * 0.75 }, g);
    t.textContent = tile.bug;
    if (numbered) el("text", { class: "num", x: cx, y: cy + radius * 0.55, fill: numFill }, g).textContent = tile.number;
    return;
  }
  const size = radius * (numbered ? 1.2 : 1.3);
  el("use", { class: "glyph", href: `#bug-${tile.bug}`, x: cx - size / 2 - (numbered ? radius * 0.1 : 0),
    y: cy - size / 2, width: size, height: size, color: BUG_COLOURS[tile.bug], "data-bug": tile.bug }, g);
  if (numbered) el("text", { class: "num", x: cx + radius * 0.6, y: cy + radius * 0.38, fill: numFill }, g).textContent = tile.number;
}

// ----- pan and zoom ----------------------------------------------------------------------
function applyZoom() {
  const z = ui.zoom;
  $("viewport").setAttribute("transform", `translate(${z.x},${z.y}) scale(${z.k})`);
}
function fitView() {
  const svg = $("board");
  const w = svg.clientWidth || 800, h = svg.clientHeight || 500;
  const cells = viewCells();
  if (!cells.length) cells.push([0, 0]);
  const px = cells.map(pixel);
  const xs = px.map((p) => p[0]), ys = px.map((p) => p[1]);
  const minX = Math.min(...xs) - 2 * R, maxX = Math.max(...xs) + 2 * R;
  const minY = Math.min(...ys) - 2 * R, maxY = Math.max(...ys) + 2 * R;
  const k = Math.min(1.6, w / (maxX - minX), h / (maxY - minY));
  ui.zoom = { k, x: w / 2 - k * (minX + maxX) / 2, y: h / 2 - k * (minY + maxY) / 2 };
  applyZoom();
}
// The cells the board must show: tiles, legal destinations, and the reviewed moves' cells.
function viewCells() {
  if (!ui.view) return [];
  const cells = ui.view.tiles.map((t) => t.cell).concat(ui.view.legal_moves.filter((m) => m.to).map((m) => m.to));
  const r = reviewOf();
  const p = r && r.plies[ui.view.ply];
  if (p) for (const c of [p.played_cells, p.best_cells]) for (const x of [c.from, c.to]) if (x) cells.push(x);
  return cells;
}

// Re-fit only when a tile or destination has left the visible area (keeps the user's pan).
function keepInView() {
  const svg = $("board");
  const w = svg.clientWidth, h = svg.clientHeight, z = ui.zoom;
  const cells = viewCells();
  const out = cells.some((c) => {
    const [x, y] = pixel(c);
    const sx = z.x + z.k * x, sy = z.y + z.k * y;
    return sx < R * z.k || sy < R * z.k || sx > w - R * z.k || sy > h - R * z.k;
  });
  if (out) fitView();
}

function setupPanZoom() {
  const svg = $("board");
  let drag = null;
  svg.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0) return;
    drag = { x: ev.clientX, y: ev.clientY, zx: ui.zoom.x, zy: ui.zoom.y, moved: false };
  });
  svg.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 4) return;
    drag.moved = true;
    svg.classList.add("dragging");
    ui.zoom.x = drag.zx + dx; ui.zoom.y = drag.zy + dy;
    applyZoom();
  });
  const end = () => {
    if (drag && drag.moved) ui.suppressClick = true;
    drag = null; svg.classList.remove("dragging");
  };
  svg.addEventListener("pointerup", end);
  svg.addEventListener("pointerleave", end);
  svg.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const rect = svg.getBoundingClientRect();
    const mx = ev.clientX - rect.left, my = ev.clientY - rect.top;
    const f = Math.exp(-ev.deltaY * 0.0015);
    const k = Math.min(4, Math.max(0.2, ui.zoom.k * f));
    const ratio = k / ui.zoom.k;
    ui.zoom = { k, x: mx - (mx - ui.zoom.x) * ratio, y: my - (my - ui.zoom.y) * ratio };
    applyZoom();
  }, { passive: false });
  svg.addEventListener("click", (ev) => {
    if (ui.suppressClick) { ui.suppressClick = false; ev.stopPropagation(); return; }
    onBoardClick(ev);
  }, true);
}

// ----- drawing ---------------------------------------------------------------------------
function humanToMove(state) {
  return state && state.live && !state.result && state.to_move_kind === "human";
}

function render() {
  const v = ui.view;
  if (!v) return;
  const interactive = humanToMove(v);
  const movable = new Set(interactive ? v.legal_moves.filter((m) => m.piece).map((m) => m.piece) : []);

  // last move
  const last = $("layer-last");
  last.replaceChildren();
  if (v.last_move && v.last_move.to) {
    if (v.last_move.from) el("polygon", { class: "last-from", points: hexPoints(...pixel(v.last_move.from), R - 3) }, last);
    el("polygon", { class: "last-to", points: hexPoints(...pixel(v.last_move.to), R + 2) }, last);
  }

  // stacks, drawn by their top tile
  const layer = $("layer-tiles");
  layer.replaceChildren();
  const stacks = new Map();
  for (const t of v.tiles) {
    const k = key(t.cell);
    if (!stacks.has(k)) stacks.set(k, []);
    stacks.get(k).push(t);
  }
  for (const [k, stack] of stacks) {
    stack.sort((a, b) => a.level - b.level);
    const top = stack[stack.length - 1];
    const [cx, cy] = pixel(top.cell);
    const g = el("g", { class: `cell ${top.colour}`, "data-q": top.cell[0], "data-r": top.cell[1], "data-piece": top.piece, "data-key": k }, layer);
    if (movable.has(top.piece)) g.classList.add("movable");
    if (ui.selected && ui.selected.piece === top.piece) g.classList.add("selected");
    if (stack.length > 1) { // the tiles underneath peek out
      for (let i = 0; i < stack.length - 1; i++) {
        const off = (stack.length - 1 - i) * 3;
        el("polygon", { class: `under ${stack[i].colour}`, points: hexPoints(cx + off, cy - off, R - 2),
          fill: stack[i].colour === "white" ? "#fbf8ef" : "#2b2b2b", stroke: "#999" }, g);
      }
    }
    drawTileFace(g, cx, cy, top);
    el("title", {}, g).textContent = stack.map((t) => t.piece).join(" < ") + (stack.length > 1 ? " (bottom < top)" : "");
    if (stack.length > 1) {
      const b = el("g", { class: "badge" }, g);
      el("circle", { cx: cx + R * 0.6, cy: cy - R * 0.6, r: 8 }, b);
      el("text", { x: cx + R * 0.6, y: cy - R * 0.6 }, b).textContent = stack.length;
    }
  }

  // destinations of the picked tile
  const dests = $("layer-dests");
  dests.replaceChildren();
  if (interactive && ui.selected) {
    for (const m of v.legal_moves) {
      if (m.piece !== ui.selected.piece || !m.to) continue;
      const [cx, cy] = pixel(m.to);
      const g = el("g", { class: "dest", "data-move": m.move, "data-q": m.to[0], "data-r": m.to[1] }, dests);
      el("polygon", { points: hexPoints(cx, cy, R - 4) }, g);
      el("title", {}, g).textContent = m.move;
    }
  }

  renderAnalysisMarks();
  renderReviewMarks();
  renderHint();
  keepInView();
  renderTrays(interactive);
  renderStatus();
  renderMoveList();
  const passOnly = interactive && v.legal_moves.length === 1 && v.legal_moves[0].pass;
  $("pass").disabled = !passOnly;
  $("undo").disabled = !!ui.game.clock;
  $("undo").title = ui.game.clock ? "No undo in a game with a clock" : "";
  const banner = $("result-banner");
  banner.hidden = !v.result;
  banner.replaceChildren();
  if (v.result) {
    const text = document.createElement("span");
    text.id = "result-text";
    text.textContent = v.result.text;
    banner.append(text);
    if (!reviewOf() && !ui.reviewing) {
      const b = document.createElement("button");
      b.type = "button"; b.id = "review-banner"; b.textContent = "Review this game";
      b.addEventListener("click", startReview);
      banner.append(" ", b);
    }
  }
  renderReviewChart();
}

function renderTrays(interactive) {
  const v = ui.view;
  const bottom = ui.flipped ? "black" : "white";
  for (const [id, colour] of [["tray-bottom", bottom], ["tray-top", bottom === "white" ? "black" : "white"]]) {
    const tray = $(id);
    tray.replaceChildren();
    const label = document.createElement("span");
    label.className = "tray-label";
    label.textContent = ui.sideNames[colour];
    tray.appendChild(label);
    const byBug = new Map();
    for (const t of v.reserves[colour]) {
      if (!byBug.has(t.bug)) byBug.set(t.bug, []);
      byBug.get(t.bug).push(t);
    }
    for (const [bug, tiles] of byBug) {
      const next = tiles[0];
      const div = document.createElement("div");
      div.className = `reserve-tile ${colour}`;
      div.dataset.piece = next.piece;
      div.dataset.bug = bug;
      div.title = `${ui.bugs[bug].name} (${tiles.length} left)`;
      const canPlace = interactive && v.legal_moves.some((m) => m.piece === next.piece && !m.from);
      if (canPlace) div.classList.add("movable");
      if (ui.selected && ui.selected.piece === next.piece) div.classList.add("selected");
      const svg = el("svg", { viewBox: "-20 -22 40 44" });
      const g = el("g", { class: `cell ${colour}` }, svg);
      drawTileFace(g, 0, 0, { ...next, number: 1, bug }, 19);
      g.querySelectorAll("text.num").forEach((n) => n.remove());
      div.appendChild(svg);
      if (tiles.length > 1) {
        const c = document.createElement("span");
        c.className = "count";
        c.textContent = `×${tiles.length}`;
        div.appendChild(c);
      }
      div.addEventListener("click", () => {
        if (!canPlace) return;
        ui.selected = ui.selected && ui.selected.piece === next.piece ? null : { piece: next.piece };
        render();
      });
      tray.appendChild(div);
    }
    const clock = document.createElement("div");
    clock.className = "clock";
    clock.id = `clock-${colour}`;
    clock.hidden = true;
    const side = document.createElement("span");
    side.className = "clock-side";
    side.textContent = label.textContent;
    const time = document.createElement("span");
    time.className = "time";
    clock.append(side, time);
    tray.appendChild(clock);
  }
  renderClocks();
}

// ----- clocks ------------------------------------------------------------------------------
// The server keeps the clocks (it declares a loss on time); the page only counts the running one
// down between its answers, re-synced from each answer's `remaining`.
function syncClock(state) {
  ui.clock = state.clock ? { ...state.clock, at: performance.now() } : null;
  ui.flagAsked = false;
}

function clockSeconds(side) {
  const c = ui.clock;
  let t = c.remaining[side];
  if (c.running === side) t -= (performance.now() - c.at) / 1000;
  return Math.max(0, t);
}

// m:ss (h:mm:ss from an hour), with tenths under 10 s.
function formatClock(t) {
  if (t < 10) {
    const tenths = Math.floor(t * 10);
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const s = Math.floor(t), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60;
  const mmss = `${h ? String(m).padStart(2, "0") : m}:${String(s % 60).padStart(2, "0")}`;
  return h ? `${h}:${mmss}` : mmss;
}

function renderClocks() {
  const c = ui.clock;
  ["white", "black"].forEach((colour, side) => {
    const e = $(`clock-${colour}`);
    if (!e) return;
    e.hidden = !c;
    if (!c) return;
    const t = clockSeconds(side);
    e.querySelector(".time").textContent = formatClock(t);
    e.classList.toggle("running", c.running === side);
    e.classList.toggle("flagged", c.flagged === side);
    e.classList.toggle("low", t < 10);
    e.title = `${ui.sideNames[colour]}: ${t.toFixed(1)} s left (${c.control} clock)`;
  });
}

// Every tenth of a second: the clocks drawn again, and when a person's displayed time is up the
// server asked (once per answer), so that it declares the loss on time.
function tickClock() {
  const c = ui.clock;
  if (!c) return;
  renderClocks();
  if (c.running === null || ui.flagAsked || !ui.game || ui.game.to_move_kind !== "human") return;
  if (clockSeconds(c.running) > 0) return;
  ui.flagAsked = true;
  askFlag();
}

async function askFlag() {
  const { id, live_ply: ply } = ui.game;
  try {
    const state = await api("GET", `/api/games/${id}`);
    if (!ui.game || ui.game.id !== id || ui.game.live_ply !== ply) return; // a move came meanwhile
    if (state.result) takeLive(state);
    else syncClock(state); // the page ran ahead of the server: asked again when it is up
  } catch (e) { showError(e.message); }
}

function renderStatus() {
  const v = ui.view, g = ui.game;
  const side = ui.sideNames[v.to_move];
  let text;
  if (v.result) text = v.result.text;
  else {
    const who = g.players[v.to_move];
    text = `${side} to move (${who.kind === "human" ? "a person" : who.label}), move ${v.move_number}`;
    if (ui.thinking && v.live) text += ", thinking...";
  }
  $("status").textContent = `${g.game_type}: ${text}`;
  // the engines of the game and their strength (an AlphaZero seat's label names its level and time)
  $("seats").textContent = ["white", "black"].filter((c) => g.players[c].kind !== "human")
    .map((c) => `${ui.sideNames[c]}: ${g.players[c].label}`).join("; ");
  $("browse-note").hidden = v.live;
}

function renderMoveList() {
  const list = $("move-list");
  const moves = ui.game.moves;
  const current = ui.view.ply;
  list.replaceChildren();
  const start = document.createElement("li");
  start.value = 0;
  const s = document.createElement("span");
  s.className = "move" + (current === 0 ? " current" : "");
  s.dataset.ply = 0;
  s.textContent = "(start)";
  start.appendChild(s);
  list.appendChild(start);
  moves.forEach((m, i) => {
    const li = document.createElement("li");
    li.value = i + 1;
    const span = document.createElement("span");
    span.className = "move" + (current === i + 1 ? " current" : "");
    span.dataset.ply = i + 1;
    span.textContent = m;
    li.appendChild(span);
    const judged = reviewOf() && reviewOf().plies[i];
    if (judged && judged.mark) {
      const mk = document.createElement("span");
      mk.className = `mark ${judged.mark}`;
      mk.dataset.ply = i + 1;
      mk.textContent = MARK_SIGNS[judged.mark];
      mk.title = markText(judged);
      li.appendChild(mk);
      span.title = mk.title;
    }
    list.appendChild(li);
  });
  const cur = list.querySelector(".current");
  if (cur) cur.scrollIntoView({ block: "nearest" });
}

function renderAnalysisMarks() {
  const layer = $("layer-analysis");
  layer.replaceChildren();
  const a = ui.analysis;
  if (!a || !ui.view || a.ply !== ui.view.ply || a.gameId !== ui.game.id) return;
  const top = a.moves.slice(0, 5).filter((m) => m.to);
  const weight = (m) => (m.share !== null ? m.share : m.prior);
  // one mark per destination (moves of several pieces to one cell share it), strongest first
  const byCell = new Map();
  for (const m of top) {
    const k = key(m.to);
    if (!byCell.has(k)) byCell.set(k, []);
    byCell.get(k).push(m);
  }
  const placed = []; // label boxes already drawn, in SVG units
  for (const moves of byCell.values()) {
    const [tx, ty] = pixel(moves[0].to);
    const g = el("g", { class: "analysis-mark" }, layer);
    const total = moves.reduce((s, m) => s + weight(m), 0);
    el("polygon", { points: hexPoints(tx, ty, R - 8), "fill-opacity": (0.15 + 0.6 * Math.min(1, total)).toFixed(2) }, g);
    for (const m of moves) {
      if (!m.from) continue;
      const [fx, fy] = pixel(m.from);
      el("line", { x1: fx, y1: fy, x2: tx, y2: ty, "stroke-width": (2 + 8 * weight(m)).toFixed(1), "stroke-opacity": 0.55 }, g);
    }
    const extra = moves.length > 1 ? ` +${moves.length - 1}` : "";
    const text = `${moves[0].piece} ${(100 * weight(moves[0])).toFixed(0)}%${extra}`;
    const label = el("text", { class: "analysis-label", x: tx, y: ty + R * 0.55 }, g);
    label.textContent = text;
    el("title", {}, g).textContent = moves.map((m) => `${m.move} ${(100 * weight(m)).toFixed(1)}%`).join("\n");
    // below the cell, else above it, else left out (the table lists every move)
    placeLabel(label, ty, [R * 0.55, -R * 0.55, R * 1.05, -R * 1.05], placed);
  }
}

// Puts a drawn SVG label at the first height y + dy where it overlaps no box of `placed`, and
// adds its box there; a label with no free place is removed. Returns whether it was placed.
function placeLabel(label, y, offsets, placed) {
  for (const dy of offsets) {
    label.setAttribute("y", y + dy);
    const b = label.getBBox();
    if (!placed.some((p) => b.x < p.x + p.width && p.x < b.x + b.width && b.y < p.y + p.height && p.y < b.y + b.height)) {
      placed.push(b);
      return true;
    }
  }
  label.remove();
  return false;
}

// ----- analysis panel ----------------------------------------------------------------------
function pct(x) { return `${(100 * x).toFixed(1)}%`; }

async function analyse() {
  if (!ui.view) return;
  if (ui.view.result) { showError("the game is over: nothing to analyse"); return; }
  const sims = Math.max(0, Math.min(2000, parseInt($("sims").value || "0", 10)));
  const model = $("analysis-model").value;
  const q = new URLSearchParams({ sims, ply: ui.view.ply });
  if (model) q.set("model", model);
  const forPly = ui.view.ply, gameId = ui.game.id;
  try {
    const a = await api("GET", `/api/games/${ui.game.id}/analysis?${q}`);
    if (!ui.view || ui.view.ply !== forPly || ui.game.id !== gameId) return; // moved on meanwhile
    ui.analysis = { ...a, gameId };
    showAnalysis();
    renderAnalysisMarks();
  } catch (e) { showError(e.message); }
}

function showAnalysis() {
  const a = ui.analysis;
  $("analysis-out").hidden = false;
  const bar = $("wdl-bar");
  bar.querySelector(".w").style.width = pct(a.wdl.white);
  bar.querySelector(".d").style.width = pct(a.wdl.draw);
  bar.querySelector(".b").style.width = pct(a.wdl.black);
  for (const k of ["white", "draw", "black"]) {
    const cell = $(`wdl-${k}`);
    cell.textContent = pct(a.wdl[k]);
    cell.dataset.value = a.wdl[k];
  }
  $("analysis-note").textContent = `${a.model.label}; ${a.side_to_move} to move; ` +
    (a.sims ? `${a.sims} simulations, search value ${a.search_value >= 0 ? "+" : ""}${a.search_value.toFixed(2)} for ${ui.sideNames.white}`
      : "priors only (0 simulations)");
  const body = $("top-moves").querySelector("tbody");
  body.replaceChildren();
  const shown = a.moves.slice(0, 10);
  const row = (cells, cls, values) => {
    const tr = document.createElement("tr");
    if (cls) tr.className = cls;
    cells.forEach((c, i) => {
      const td = document.createElement("td");
      td.textContent = c;
      if (values && values[i] !== undefined && values[i] !== null) td.dataset.value = values[i];
      tr.appendChild(td);
    });
    body.appendChild(tr);
    return tr;
  };
  for (const m of shown) {
    const tr = row([m.move, pct(m.prior), m.share === null ? "-" : pct(m.share)], "", [null, m.prior, m.share]);
    tr.classList.add("analysed-move");
    tr.dataset.move = m.move;
    tr.addEventListener("click", () => { if (humanToMove(ui.view)) playMove(m.move); });
  }
  const rest = a.moves.slice(10);
  if (rest.length) {
    const p = rest.reduce((s, m) => s + m.prior, 0);
    const v = a.sims ? rest.reduce((s, m) => s + (m.share || 0), 0) : null;
    const tr = row([`${rest.length} other moves`, pct(p), v === null ? "-" : pct(v)], "other", [null, p, v]);
    tr.classList.add("analysed-move");
  }
}

// ----- review ------------------------------------------------------------------------------
// The review of the game on screen, while its moves are still those reviewed (an undo and
// another move make it stale).
function reviewOf() {
  const r = ui.review;
  if (!r || !ui.game || r.gameId !== ui.game.id) return null;
  if (r.plies.some((p, i) => ui.game.moves[i] !== p.played)) return null;
  return r;
}

function pctPoints(x) { return `${(100 * x).toFixed(0)}`; }
function markText(p) {
  const why = p.tactic ? p.tactic : `${p.mark}: -${pctPoints(p.drop)} points`;
  return `${p.played}: ${why}; best ${p.best} (${pct(p.best_share)} of visits)`;
}

async function startReview() {
  if (!ui.game || !ui.game.moves.length) { showError("no move has been played: nothing to review"); return; }
  const token = ++ui.reviewToken;
  const gameId = ui.game.id;
  const sims = Math.max(1, Math.min(800, parseInt($("review-sims").value || "100", 10)));
  const body = { sims };
  if ($("analysis-model").value) body.model = $("analysis-model").value;
  ui.review = null;
  ui.reviewing = true;
  $("review-area").hidden = false;
  $("review-cancel").hidden = false;
  $("review-start").disabled = true;
  setReviewStatus(0, "starting...");
  render();
  try {
    let job = await api("POST", `/api/games/${gameId}/review`, body);
    while (job.status === "queued" || job.status === "running") {
      setReviewStatus(job.progress, job.status === "queued" ? "waiting for a free worker..." :
        `${job.plies} positions, ${job.sims} simulations each: ${Math.round(100 * job.progress)}%`);
      await new Promise((r) => setTimeout(r, 300));
      if (token !== ui.reviewToken) return;
      job = await fetch(`/api/games/${gameId}/review`).then((r) => r.json());
    }
    if (token !== ui.reviewToken) return;
    if (job.status === "done") {
      ui.review = { gameId, plies: job.plies_reviewed, scores: job.white_scores, sims: job.sims, model: job.model };
      setReviewStatus(1, `done: ${job.plies} moves, ${job.sims} simulations a position, ${job.elapsed_s.toFixed(1)} s`);
    } else setReviewStatus(job.progress, job.status === "cancelled" ? "cancelled" : `failed: ${job.error}`);
  } catch (e) { showError(e.message); setReviewStatus(0, "failed"); }
  finally {
    if (token === ui.reviewToken) {
      ui.reviewing = false;
      $("review-cancel").hidden = true;
      $("review-start").disabled = false;
      render();
    }
  }
}

async function cancelReview() {
  if (!ui.game) return;
  try { await api("DELETE", `/api/games/${ui.game.id}/review`); } catch (e) { showError(e.message); }
}

function setReviewStatus(progress, text) {
  $("review-progress").value = progress;
  $("review-status").textContent = text;
}

function renderReviewChart() {
  const svg = $("review-chart");
  const r = reviewOf();
  const area = $("review-area");
  if (!r) {
    svg.replaceChildren();
    $("review-summary").hidden = true;
    $("review-note").textContent = "";
    if (!ui.reviewing) area.hidden = true;
    return;
  }
  area.hidden = false;
  const w = svg.clientWidth || 600, h = svg.clientHeight || 120, pad = 6;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.replaceChildren();
  const n = r.scores.length - 1;
  const x = (ply) => pad + (w - 2 * pad) * (n ? ply / n : 0);
  const y = (score) => pad + (h - 2 * pad) * (1 - score);
  el("rect", { class: "chart-black", x: 0, y: 0, width: w, height: h }, svg);
  const pts = r.scores.map((s, i) => `${x(i).toFixed(1)},${y(s).toFixed(1)}`);
  el("polygon", { class: "chart-white", points: `${x(0)},${h} ${pts.join(" ")} ${x(n)},${h}` }, svg);
  el("line", { class: "chart-mid", x1: 0, x2: w, y1: y(0.5), y2: y(0.5) }, svg);
  el("polyline", { class: "chart-line", points: pts.join(" ") }, svg);
  const at = ui.view ? Math.min(ui.view.ply, n) : 0;
  el("line", { class: "chart-cursor", x1: x(at), x2: x(at), y1: 0, y2: h }, svg);
  r.plies.forEach((p, i) => {
    if (!p.mark) return;
    const c = el("circle", { class: `chart-mark ${p.mark}`, cx: x(i + 1), cy: y(r.scores[i + 1]), r: 4.5, "data-ply": i + 1 }, svg);
    el("title", {}, c).textContent = `${i + 1}. ${markText(p)}`;
  });
  // summary: marks per side
  const counts = { white: {}, black: {} };
  for (const p of r.plies) if (p.mark) counts[p.mover][p.mark] = (counts[p.mover][p.mark] || 0) + 1;
  const body = $("review-summary").querySelector("tbody");
  body.replaceChildren();
  for (const mark of ["inaccuracy", "mistake", "blunder"]) {
    const tr = document.createElement("tr");
    for (const text of [`${MARK_SIGNS[mark]} ${mark}`, counts.white[mark] || 0, counts.black[mark] || 0]) {
      const td = document.createElement("td"); td.textContent = text; tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  $("review-summary").hidden = false;
  // the position on screen: its score, and the move played there against the best one
  const p = ui.view && r.plies[ui.view.ply];
  const score = r.scores[Math.min(at, n)];
  let note = `After ${at} plies ${ui.sideNames.white}'s expected score is ${pct(score)}.`;
  if (p) note += ` Next, ${at + 1}. ${p.played} was played (rank ${p.played_rank}, ${pct(p.played_share)} of visits)` +
    (p.played === p.best ? ", the best move." : `; best ${p.best} (${pct(p.best_share)})` +
      (p.mark ? `: ${p.tactic || p.mark}, -${pctPoints(p.drop)} points.` : "."));
  $("review-note").textContent = note;
}

function onChartClick(ev) {
  const r = reviewOf();
  if (!r) return;
  const svg = $("review-chart");
  const rect = svg.getBoundingClientRect();
  const n = r.scores.length - 1, pad = 6;
  const share = (ev.clientX - rect.left - pad) / Math.max(1, rect.width - 2 * pad);
  browse(Math.round(Math.max(0, Math.min(1, share)) * n));
}

// On the board: the move played from this position and the search's best one.
function renderReviewMarks() {
  const layer = $("layer-review");
  layer.replaceChildren();
  const r = reviewOf();
  const p = r && ui.view && r.plies[ui.view.ply];
  if (!p) return;
  const same = p.played === p.best;
  const placed = [];
  const arrows = same ? [["best played", p.best_cells, "played = best"]] :
    [["played", p.played_cells, "played"], ["best", p.best_cells, "best"]];
  for (const [cls, c, text] of arrows) {
    if (!c.to) continue;
    const g = el("g", { class: `review-move ${cls}`, "data-move": c.move }, layer);
    const [tx, ty] = pixel(c.to);
    el("polygon", { points: hexPoints(tx, ty, R - 5) }, g);
    if (c.from) {
      const [fx, fy] = pixel(c.from);
      const d = Math.hypot(tx - fx, ty - fy) || 1;
      const ex = tx - (tx - fx) / d * R * 0.45, ey = ty - (ty - fy) / d * R * 0.45;
      el("line", { x1: fx, y1: fy, x2: ex, y2: ey }, g);
      el("circle", { cx: ex, cy: ey, r: 4 }, g);
    }
    const label = el("text", { x: tx, y: ty }, g);
    label.textContent = `${text}: ${c.piece}`;
    placeLabel(label, ty, [-R * 0.62, R * 0.75, -R * 1.1, R * 1.25], placed);
    el("title", {}, g).textContent = `${text}: ${c.move}`;
  }
}

// ----- actions ---------------------------------------------------------------------------
function showState(state, fit = false) {
  ui.target = null;
  if (!ui.game || ui.game.id !== state.id || ui.game.live_ply !== state.live_ply) ui.hint = null;
  $("game-type").value = state.game_type;
  ui.game = state;
  syncClock(state);
  ui.view = state;
  ui.selected = null;
  render();
  if (fit) fitView();
  if ($("auto-analyse").checked && !state.result) analyse();
  refreshGames();
}

// Show the position after `ply` plies; quick key presses add up (ui.target runs ahead of the
// position on screen, and a late answer for an abandoned target is dropped).
async function browse(ply) {
  if (!ui.game) return;
  ply = Math.max(0, Math.min(ui.game.live_ply, ply));
  ui.target = ply;
  if (ply === ui.game.live_ply) { ui.view = ui.game; ui.selected = null; render(); }
  else {
    try {
      const view = await api("GET", `/api/games/${ui.game.id}?ply=${ply}`);
      if (ui.target !== ply) return;
      ui.view = view;
      ui.selected = null;
      render();
    } catch (e) { showError(e.message); return; }
  }
  if ($("auto-analyse").checked && !ui.view.result) analyse();
}

async function playMove(move) {
  if (ui.puzzle) { puzzleMove(move); return; } // the Puzzles mode (puzzles.js) answers first
  if (!humanToMove(ui.game)) return;
  setBusy(1); // busy until the engine's reply is in too
  try {
    showState(await api("POST", `/api/games/${ui.game.id}/play`, { move }));
    await runEngines();
  } catch (e) { showError(e.message); } finally { setBusy(-1); }
}

// A new live state of the game on screen; the board follows it unless an earlier ply is shown.
function takeLive(state, draw = true) {
  const follow = ui.view === ui.game;
  ui.game = state;
  syncClock(state);
  if (follow) { ui.view = state; ui.selected = null; ui.target = null; }
  if (draw) render();
}

// Let engines move while it is an engine's turn (the opponent, or both sides when watching).
async function runEngines() {
  const token = ++ui.loopToken;
  while (ui.game && ui.game.to_move_kind === "engine" && !ui.game.result && token === ui.loopToken) {
    if (ui.watching) {
      await new Promise((r) => setTimeout(r, parseInt($("speed").value, 10)));
      while (ui.paused && token === ui.loopToken) await new Promise((r) => setTimeout(r, 200));
      if (token !== ui.loopToken) return;
    }
    ui.thinking = true;
    renderStatus();
    try {
      const state = await api("POST", `/api/games/${ui.game.id}/engine-move`);
      if (token !== ui.loopToken) return;
      takeLive(state, false);
    } catch (e) {
      showError(e.message);
      return;
    } finally {
      ui.thinking = false;
    }
    render();
    if (ui.view === ui.game && $("auto-analyse").checked && !ui.game.result) analyse();
  }
}

function seatIds() {
  if ($("mode").value === "review") return ["human", "human"];
  if ($("mode").value === "watch") return [$("watch-white").value, $("watch-black").value];
  const opp = $("opponent").value;
  return $("colour").value === "white" ? ["human", opp] : [opp, "human"];
}

async function newGame(record) {
  setBusy(1);
  try { await startGame(record); } finally { setBusy(-1); }
}

// Before another game is shown: the engine loop, a review and an analysis of the old one end.
function leaveGame() {
  ui.loopToken++;
  ui.reviewToken++;
  ui.reviewing = false;
  ui.review = null;
  $("review-cancel").hidden = true;
  $("review-start").disabled = false;
  ui.analysis = null;
  $("analysis-out").hidden = true;
}

// A new game, or one loaded from record text (any format the server reads); in the Review mode
// a loaded game is reviewed at once.
async function startGame(record) {
  leaveGame();
  ui.watching = $("mode").value === "watch";
  const [white, black] = seatIds();
  const body = { game_type: $("game-type").value, white, black, seed: Math.floor(Math.random() * 1e9),
    level: parseInt($("level").value, 10) };
  if (record === undefined && $("mode").value === "play" && $("clock").value) {
    body.clock = $("clock").value === "custom" ? $("clock-custom").value.trim() : $("clock").value;
  }
  if (record !== undefined) {
    body.record = record;
    body.record_game = Math.max(1, parseInt($("load-game").value || "1", 10));
  }
  const cap = new URLSearchParams(location.search).get("ply_cap");
  if (cap) body.ply_cap = parseInt(cap, 10);
  try {
    const state = await api("POST", "/api/games", body); // the previous game stays in "Your games"
    showState(state, true);
  } catch (e) { showError(e.message); return; }
  if ($("mode").value === "review" && record !== undefined && ui.game.moves.length) { startReview(); return; }
  if (ui.watching) runEngines(); // a watched game runs on; the page stays usable meanwhile
  else await runEngines();
}

function onBoardClick(ev) {
  const v = ui.view;
  const dest = ev.target.closest(".dest");
  if (dest) { playMove(dest.dataset.move); return; }
  const cell = ev.target.closest(".cell");
  const stackView = $("stack-view");
  if (cell) {
    const stack = v.tiles.filter((t) => key(t.cell) === cell.dataset.key).sort((a, b) => a.level - b.level);
    stackView.hidden = stack.length < 2;
    stackView.textContent = `Stack (bottom to top): ${stack.map((t) => t.piece).join(", ")}`;
  } else stackView.hidden = true;
  if (cell && cell.classList.contains("movable")) {
    ui.selected = ui.selected && ui.selected.piece === cell.dataset.piece ? null : { piece: cell.dataset.piece };
  } else ui.selected = null; // an illegal click: nothing but a cleared selection
  render();
}

// ----- save as, hint, the client's games -------------------------------------------------------
// Save as: the server writes the record (GET .../record?format=gamestring|pgn|sgf, a download).
function saveAs() {
  if (!ui.game) return;
  const a = document.createElement("a");
  a.href = `/api/games/${ui.game.id}/record?format=${$("save-format").value}`;
  a.download = "";
  a.id = "save-link";
  document.body.appendChild(a);
  a.click();
  setTimeout(() => a.remove(), 0);
}

// Hint: the network's best move for the person to move, drawn on the board; the server counts it.
async function askHint() {
  if (!humanToMove(ui.view)) { showError("a hint is for a person to move, in the live position"); return; }
  const gameId = ui.game.id, ply = ui.game.live_ply;
  const q = new URLSearchParams({ sims: Math.max(0, Math.min(2000, parseInt($("sims").value || "0", 10))) });
  if ($("analysis-model").value) q.set("model", $("analysis-model").value);
  try {
    const h = await api("POST", `/api/games/${gameId}/hint?${q}`);
    if (!ui.game || ui.game.id !== gameId || ui.game.live_ply !== ply) return; // moved on meanwhile
    ui.game.hints = h.hints;
    ui.hint = { gameId, ply, move: h.move };
    if (h.move.piece && ui.view === ui.game) ui.selected = { piece: h.move.piece }; // its destinations light up
    render();
  } catch (e) { showError(e.message); }
}

function renderHint() {
  const layer = $("layer-hint");
  layer.replaceChildren();
  const g = ui.game;
  $("hint-count").textContent = g && g.hints ? `Hints: ${g.hints}` : "";
  $("hint").disabled = !humanToMove(ui.view);
  const h = ui.hint;
  if (!h || !g || h.gameId !== g.id || h.ply !== g.live_ply || ui.view !== g) return;
  const m = h.move;
  const mark = el("g", { class: "hint-mark", "data-move": m.move }, layer);
  el("title", {}, mark).textContent = `hint: ${m.move}`;
  if (m.pass) { el("text", { x: 0, y: 0 }, mark).textContent = "hint: pass"; return; }
  const [tx, ty] = pixel(m.to);
  el("polygon", { points: hexPoints(tx, ty, R - 3) }, mark);
  if (m.from) {
    const [fx, fy] = pixel(m.from);
    const d = Math.hypot(tx - fx, ty - fy) || 1;
    const ux = (tx - fx) / d, uy = (ty - fy) / d;
    const ex = tx - ux * R * 0.35, ey = ty - uy * R * 0.35;
    el("line", { x1: fx + ux * R * 0.3, y1: fy + uy * R * 0.3, x2: ex, y2: ey }, mark);
    const px = -uy * 6, py = ux * 6; // the arrow head
    el("polygon", { class: "head", points: `${tx - ux * R * 0.15},${ty - uy * R * 0.15} ${ex + px},${ey + py} ${ex - px},${ey - py}` }, mark);
  }
  el("text", { x: tx, y: ty - R * 0.95 }, mark).textContent = `hint: ${m.piece}`;
}

// Your games: GET /api/games, most recently used first; resume, review or delete each.
async function refreshGames() {
  try { ui.games = (await api("GET", "/api/games")).games; } catch (e) { return; }
  const body = $("game-list").querySelector("tbody");
  body.replaceChildren();
  const name = (p) => (p.kind === "human" ? "a person" : p.label.split(/[,(]/)[0].trim());
  for (const g of ui.games) {
    const tr = document.createElement("tr");
    tr.dataset.id = g.id;
    if (ui.game && g.id === ui.game.id) tr.className = "current";
    const what = document.createElement("td");
    what.textContent = `${g.game_type}: ${name(g.players.white)} v ${name(g.players.black)}, ply ${g.ply}` +
      (g.state === "InProgress" || g.state === "NotStarted" ? "" : `, ${g.state}`) + (g.hints ? `, ${g.hints} hints` : "");
    what.title = `last played ${new Date(g.touched * 1000).toLocaleString()}`;
    const acts = document.createElement("td");
    acts.className = "acts";
    for (const [act, label] of [["resume", "Resume"], ["review", "Review"], ["delete", "Delete"]]) {
      const b = document.createElement("button");
      b.type = "button"; b.dataset.act = act; b.textContent = label;
      if (act === "resume" && ui.game && g.id === ui.game.id) b.disabled = true;
      if (act === "review" && !g.ply) b.disabled = true;
      acts.append(b);
    }
    tr.append(what, acts);
    body.appendChild(tr);
  }
}

async function onGameListClick(ev) {
  const b = ev.target.closest("button");
  if (!b) return;
  const id = b.closest("tr").dataset.id;
  if (b.dataset.act === "delete") {
    try { await api("DELETE", `/api/games/${id}`); } catch (e) { showError(e.message); }
    if (ui.game && id === ui.game.id) await newGame();
    else refreshGames();
    return;
  }
  setBusy(1);
  try { await resumeGame(id, b.dataset.act === "review"); } finally { setBusy(-1); }
}

// Back to one of the client's games: as it is on the server; reviewed at once for "Review".
async function resumeGame(id, review) {
  leaveGame();
  let state;
  try { state = await api("GET", `/api/games/${id}`); } catch (e) { showError(e.message); refreshGames(); return; }
  ui.watching = state.players.white.kind !== "human" && state.players.black.kind !== "human";
  showState(state, true);
  if (review) { startReview(); return; }
  if (ui.watching) runEngines();
  else await runEngines();
}

// ----- start-up ----------------------------------------------------------------------------
function fillSelect(sel, items, value) {
  sel.replaceChildren();
  for (const it of items) {
    const o = document.createElement("option");
    o.value = it.id; o.textContent = it.label;
    sel.appendChild(o);
  }
  if (value && items.some((i) => i.id === value)) sel.value = value;
}

async function init() {
  setupPanZoom();
  $("status").textContent = "Starting: asking the server for the players and networks...";
  const info = await api("GET", "/api/players");
  ui.players = info.players;
  const table = await api("GET", "/api/bugs");
  ui.bugs = Object.fromEntries(table.bugs.map((b) => [b.letter, b]));
  ui.sideNames = Object.fromEntries(table.sides.map((s) => [s.colour, s.name]));
  const gt = $("game-type");
  for (const t of info.game_types) { const o = document.createElement("option"); o.value = o.textContent = t; gt.appendChild(o); }
  const engines = info.players.filter((p) => p.kind !== "human");
  const nets = info.players.filter((p) => p.kind === "alphazero");
  // your newest checkpoint when the models directory holds one, else the network shipped with the package
  const net = info.players.some((p) => p.id === "newest") ? "newest" : "shipped";
  fillSelect($("opponent"), info.players, net);
  fillSelect($("watch-white"), engines, net);
  fillSelect($("watch-black"), engines, "alphabeta-2");
  fillSelect($("analysis-model"), nets, net);
  $("analysis").hidden = !nets.length;
  $("sims").max = info.max_sims;
  const levels = info.levels.map((l) => ({ id: String(l.level), label: `${l.level}: ${l.label}` }));
  fillSelect($("level"), levels, String(info.default_level));
  for (const o of $("level").options) o.title = info.levels.find((l) => String(l.level) === o.value).detail;

  $("mode").addEventListener("change", () => {
    $("setup").classList.toggle("watch", $("mode").value === "watch");
    $("setup").classList.toggle("review", $("mode").value === "review");
  });
  $("setup").addEventListener("submit", (ev) => { ev.preventDefault(); newGame(); });
  $("clock").addEventListener("change", () => {
    $("clock-custom").hidden = $("clock").value !== "custom";
    if (!$("clock-custom").hidden) $("clock-custom").focus();
  });
  setInterval(tickClock, 100);
  $("speed").addEventListener("input", () => { $("speed-out").textContent = `${($("speed").value / 1000).toFixed(1)} s`; });
  $("pause").addEventListener("click", () => { ui.paused = !ui.paused; $("pause").textContent = ui.paused ? "Resume" : "Pause"; });
  $("flip").addEventListener("click", () => { ui.flipped = !ui.flipped; render(); fitView(); });
  $("fit").addEventListener("click", fitView);
  $("to-live").addEventListener("click", () => browse(ui.game.live_ply));
  $("pass").addEventListener("click", () => playMove("pass"));
  $("undo").addEventListener("click", async () => {
    ui.loopToken++;
    try { showState(await api("POST", `/api/games/${ui.game.id}/undo`, {})); } catch (e) { showError(e.message); }
    if (ui.watching) runEngines();
  });
  $("move-input").addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter") return;
    const text = ev.target.value.trim();
    if (!text) return;
    if (!humanToMove(ui.game)) { showError("it is not a person's turn"); return; }
    ev.target.value = "";
    playMove(text);
  });
  $("move-list").addEventListener("click", (ev) => {
    const m = ev.target.closest(".move");
    if (m) browse(parseInt(m.dataset.ply, 10));
  });
  $("save").addEventListener("click", saveAs);
  $("hint").addEventListener("click", askHint);
  $("letters").checked = ui.letters;
  $("patterns").checked = ui.patterns;
  document.body.classList.toggle("patterns", ui.patterns);
  $("letters").addEventListener("change", () => {
    ui.letters = $("letters").checked;
    localStorage.setItem("hive-web.letters", ui.letters ? "1" : "0");
    render();
  });
  $("patterns").addEventListener("change", () => {
    ui.patterns = $("patterns").checked;
    localStorage.setItem("hive-web.patterns", ui.patterns ? "1" : "0");
    document.body.classList.toggle("patterns", ui.patterns);
  });
  $("game-list").addEventListener("click", onGameListClick);
  $("load").addEventListener("click", () => newGame($("load-text").value.trim()));
  $("load-file").addEventListener("change", async (ev) => {
    const f = ev.target.files[0];
    if (!f) return;
    $("load-text").value = (await f.text()).trim();
    ev.target.value = "";
    newGame($("load-text").value);
  });
  $("analyse").addEventListener("click", analyse);
  document.addEventListener("keydown", (ev) => {
    if (["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement.tagName) || !ui.view) return;
    const at = ui.target ?? ui.view.ply;
    const moves = { ArrowLeft: at - 1, ArrowRight: at + 1, ArrowUp: 0, Home: 0,
      ArrowDown: ui.game.live_ply, End: ui.game.live_ply };
    if (ev.key in moves) { ev.preventDefault(); browse(moves[ev.key]); }
    else if (ev.key === "Escape") { ui.selected = null; render(); }
  });
  $("review-start").addEventListener("click", startReview);
  $("review-cancel").addEventListener("click", cancelReview);
  $("review-chart").addEventListener("click", onChartClick);
  window.addEventListener("resize", () => { fitView(); renderReviewChart(); });
  $("status").textContent = "Starting: setting up a new game...";
  await newGame();
}

init().catch((e) => showError(e.message));
