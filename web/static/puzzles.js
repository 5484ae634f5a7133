// hive-web's Puzzles mode (GET/POST /api/puzzles...). Loaded after app.js, whose globals it uses
// (ui, api, showState, render, newGame, showError, $). A puzzle is played on an ordinary game of
// two people loaded from the puzzle's GameString; app.js's playMove hands a move here while
// ui.puzzle is set, and it is sent as the answer first: the page says right or wrong, then plays
// the solution's line on the board (the move, and for a win in two the reply and the win).
// The streak is kept in the browser (localStorage), never on the server. ui.puzzle: the puzzle on
// the board (GET /api/puzzles/next's answer), or null outside the Puzzles mode.
"use strict";

const PUZZLE_STORE = "hive-web-puzzles";
const puzzleState = { answered: false, pending: false, request: 0 };
const PUZZLE_STEP_MS = 700; // between the moves of a line shown on the board

function puzzleStats() {
  const blank = { streak: 0, best: 0, solved: 0, tried: 0 };
  try { return { ...blank, ...JSON.parse(localStorage.getItem(PUZZLE_STORE) || "{}") }; } catch { return blank; }
}

function renderPuzzleStats() {
  const s = puzzleStats();
  $("puzzle-streak").textContent = `Streak ${s.streak} (best ${s.best}) · solved ${s.solved} of ${s.tried}`;
}

function countPuzzle(correct) {
  const s = puzzleStats();
  s.tried += 1;
  if (correct) { s.solved += 1; s.streak += 1; s.best = Math.max(s.best, s.streak); } else s.streak = 0;
  try { localStorage.setItem(PUZZLE_STORE, JSON.stringify(s)); } catch { /* private mode: not kept */ }
  renderPuzzleStats();
}

function puzzleVerdict(text, cls) {
  const v = $("puzzle-verdict");
  v.textContent = text;
  v.className = cls || "";
}

// Filters changed quickly start several requests: only the newest one's puzzle is shown (an
// older answer arriving last would show a puzzle of the filters before).
async function nextPuzzle(after) {
  const request = ++puzzleState.request;
  setBusy(1);
  try {
    const q = new URLSearchParams({ game_type: $("game-type").value });
    if ($("puzzle-kind").value) q.set("kind", $("puzzle-kind").value);
    if ($("puzzle-difficulty").value) q.set("difficulty", $("puzzle-difficulty").value);
    if (after) q.set("after", after);
    const p = await api("GET", `/api/puzzles/next?${q}`);
    if (request !== puzzleState.request) return;
    const state = await api("POST", "/api/games", { game_type: p.game_type, game_string: p.game_string,
      white: "human", black: "human" });
    if (request !== puzzleState.request) {
      api("DELETE", `/api/games/${state.id}`).catch(() => {});
      return;
    }
    if (ui.game) api("DELETE", `/api/games/${ui.game.id}`).catch(() => {});
    ui.loopToken++;
    ui.analysis = null;
    ui.review = null;
    $("analysis-out").hidden = true;
    ui.puzzle = p;
    puzzleState.answered = false;
    ui.flipped = p.to_move === "black"; // the solver's side at the bottom
    showState(state, true);
    $("puzzle-task").textContent = `${p.task}: ${ui.sideNames[p.to_move]} to move`;
    $("puzzle-meta").textContent = `${p.difficulty} · ${p.game_type} · #${p.id}`;
    $("puzzle-meta").title = `The network's prior puts ${(100 * p.prior).toFixed(0)}% on the solutions `
      + `(its rank ${p.rank} of ${p.legal_moves} moves)`;
    $("puzzle-solution").disabled = false;
    puzzleVerdict("Your move: click a piece, then where it goes.");
  } catch (e) {
    showError(e.message);
  } finally { setBusy(-1); }
}

// The line of an answer on the board, a move at a time, and the solutions in words.
async function showLine(a, prefix, cls) {
  const others = a.solutions.filter((s) => s !== a.line[0]);
  let text = `${prefix} Solution: ${a.line[0]}`;
  if (others.length) text += ` (also right: ${others.join(", ")})`;
  if (a.line.length > 1) text += `. Then ${a.line.slice(1).join(", then ")}`;
  puzzleVerdict(text + ".", cls);
  for (const [i, m] of a.line.entries()) {
    if (i) await new Promise((r) => setTimeout(r, PUZZLE_STEP_MS));
    if (!ui.puzzle || ui.puzzle.id !== a.id) return; // another puzzle meanwhile
    showState(await api("POST", `/api/games/${ui.game.id}/play`, { move: m }));
  }
}

async function puzzleMove(move) {
  if (puzzleState.answered || puzzleState.pending) return; // answered: "Next puzzle" goes on
  puzzleState.pending = true;
  setBusy(1);
  try {
    const a = await api("POST", `/api/puzzles/${ui.puzzle.id}/answer`, { move });
    puzzleState.answered = true;
    $("puzzle-solution").disabled = true;
    countPuzzle(a.correct);
    await showLine(a, a.correct ? `Right! ${a.move} it is.` : `Wrong: ${a.move} is not it.`,
      a.correct ? "right" : "wrong");
  } catch (e) { showError(e.message); } finally { puzzleState.pending = false; setBusy(-1); }
}

async function giveUp() {
  if (!ui.puzzle || puzzleState.answered) return;
  setBusy(1);
  try {
    const a = await api("GET", `/api/puzzles/${ui.puzzle.id}/solution`);
    puzzleState.answered = true;
    $("puzzle-solution").disabled = true;
    countPuzzle(false);
    await showLine(a, "Given up.", "wrong");
  } catch (e) { showError(e.message); } finally { setBusy(-1); }
}

function puzzleMode(on) {
  $("setup").classList.toggle("puzzles", on);
  document.body.classList.toggle("puzzling", on);
  $("puzzle-box").hidden = !on;
  $("new-game").textContent = on ? "Next puzzle" : "New game";
  if (on) {
    $("auto-analyse").checked = false; // the analysis would give the answer away
    renderPuzzleStats();
    nextPuzzle();
  } else if (ui.puzzle) {
    ui.puzzle = null;
    ui.flipped = false;
    newGame();
  }
}

const inPuzzles = () => $("mode").value === "puzzles";

// Loading a game leaves the Puzzles mode for the Play mode first (before app.js loads it).
function leavePuzzles() {
  if (!inPuzzles()) return;
  $("mode").value = "play";
  ui.puzzle = null;
  ui.flipped = false;
  $("setup").classList.remove("puzzles");
  document.body.classList.remove("puzzling");
  $("puzzle-box").hidden = true;
  $("new-game").textContent = "New game";
}

function setupPuzzles() {
  $("mode").addEventListener("change", () => puzzleMode(inPuzzles()));
  $("load").addEventListener("click", leavePuzzles);
  $("load-file").addEventListener("change", leavePuzzles);
  // in the Puzzles mode the form's button (and Enter) asks for the next puzzle, not a new game:
  // caught on the way down, before app.js's own submit handler on the form
  document.addEventListener("submit", (ev) => {
    if (ev.target.id !== "setup" || !inPuzzles()) return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
    nextPuzzle(ui.puzzle && ui.puzzle.id);
  }, true);
  $("puzzle-next").addEventListener("click", () => nextPuzzle(ui.puzzle && ui.puzzle.id));
  $("puzzle-solution").addEventListener("click", giveUp);
  for (const id of ["game-type", "puzzle-kind", "puzzle-difficulty"]) {
    $(id).addEventListener("change", () => { if (inPuzzles()) nextPuzzle(); });
  }
  renderPuzzleStats();
}

setupPuzzles();
