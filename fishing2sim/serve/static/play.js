// The table page (docs/serve.md): the game's view comes from /api/game/<id> (what the
// seat knows); the bots' moves since the last decision are shown line by line, then the
// options. ?pace=<ms> sets the pace (0: at once).
"use strict";
const app = document.getElementById("app");
const game = app.dataset.game;
const pace = Number(new URLSearchParams(location.search).get("pace") ?? 350);
const $ = (id) => document.getElementById(id);
let shown = 0;  // log lines shown
let busy = false;

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

async function call(path, body) {
  const opts = body === undefined ? {} : {method: "POST", body: new URLSearchParams(body),
    headers: {"Content-Type": "application/x-www-form-urlencoded"}};
  const r = await fetch(`/api/game/${game}${path}`, opts);
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

async function showLog(lines, animate) {
  const log = $("log");
  if (lines.length < shown) { log.replaceChildren(); shown = 0; }
  for (; shown < lines.length; shown++) {
    log.appendChild(el("li", lines[shown]));
    if (animate && pace > 0) { log.scrollTop = log.scrollHeight; await sleep(pace); }
  }
  log.scrollTop = log.scrollHeight;
}

function seatName(v, p) { return p === v.seat ? `you (seat ${p})` : `seat ${p} (${v.bots[p]})`; }

function renderTable(v) {
  const t = $("table");
  t.replaceChildren();
  const head = el("p", `${v.source ? v.source + ": " : ""}${v.title}, ${v.players} players, seed ${v.seed}, game ${v.game}.`);
  t.appendChild(head);
  if (v.over) return;
  const grid = el("div", undefined, "grid");
  const info = el("div", undefined, "box");
  info.appendChild(el("div", `Round ${v.round} of ${v.rounds}, trick ${v.trick_no}, leader seat ${v.leader}`));
  info.appendChild(el("div", `Trump: ${v.trump ?? "none"}; led suit: ${v.led ?? "not set"}` +
                      (v.lowest_wins ? "; lowest wins" : "")));
  info.appendChild(el("div", `Ocean: ${v.ocean_n} cards; every hand: ${v.hand_n} cards`));
  grid.appendChild(info);
  const seats = el("div", undefined, "box");
  const tb = el("table");
  const hr = el("tr");
  ["seat", "points", "boat", "fisher"].forEach((h) => hr.appendChild(el("th", h)));
  tb.appendChild(hr);
  for (let p = 0; p < v.players; p++) {
    const r = el("tr");
    [seatName(v, p), v.points[p], v.boat_n[p], v.fisher_n[p]].forEach((x) => r.appendChild(el("td", String(x))));
    tb.appendChild(r);
  }
  seats.appendChild(tb);
  grid.appendChild(seats);
  const trick = el("div", undefined, "box");
  trick.appendChild(el("div", "The trick:"));
  const ul = el("ul", undefined);
  ul.id = "trick";
  v.trick.forEach((c) => ul.appendChild(el("li", `${c.card}${c.player >= 0 ? " (seat " + c.player + ")" : ""}`, c.in ? "" : "out")));
  trick.appendChild(ul);
  grid.appendChild(trick);
  t.appendChild(grid);
  const played = el("p", "Played this round: " + (v.played.map((c) => `${c.card} (${c.player})`).join(", ") || "nothing yet"));
  t.appendChild(played);
  if (v.decision.kind !== "play") {
    t.appendChild(el("p", "Your hand: " + (v.hand.map((c) => c.label).join(", ") || "empty")));
  }
}

function renderOptions(v) {
  const box = $("options");
  box.replaceChildren();
  $("hint").replaceChildren();
  if (v.over) { $("prompt").textContent = "The game is over."; $("hint-button").hidden = true; return; }
  $("prompt").textContent = `Decision ${v.decision.number}: ${v.decision.prompt}` +
    (v.decision.subject ? ` (${v.decision.subject})` : "");
  $("note").textContent = v.decision.kind === "play"
    ? "Your hand: the cards you may play are green; another is refused with the rule." : "";
  const buttons = v.decision.kind === "play"
    ? v.hand.map((c) => ({option: c.card, label: c.label, legal: c.legal}))
    : v.decision.options.map((o) => ({option: o.option, label: o.label, legal: true}));
  buttons.forEach((b) => {
    const btn = el("button", b.label, b.legal ? "legal" : "illegal");
    btn.type = "button";
    btn.dataset.option = b.option;
    if (!b.legal) btn.setAttribute("aria-label", `${b.label} (not allowed now)`);
    btn.addEventListener("click", () => choose(b.option));
    box.appendChild(btn);
  });
}

function renderEnd(v) {
  const end = $("end");
  if (!v.over) { end.hidden = true; return; }
  end.hidden = false;
  end.replaceChildren();
  end.appendChild(el("h2", "Game over"));
  const pts = el("p", `Final points: ${v.end.points.map((x, p) => seatName(v, p) + " " + x).join(", ")}; ` +
                 `winners: ${v.end.winners.map((p) => seatName(v, p)).join(", ")} (${v.end.reason}).`);
  pts.id = "final";
  pts.dataset.points = JSON.stringify(v.end.points);
  end.appendChild(pts);
  const btn = el("button", "Review my decisions");
  btn.type = "button";
  btn.id = "review-button";
  btn.addEventListener("click", review);
  end.appendChild(btn);
  end.appendChild(el("div")).id = "review";
}

async function render(v, animate) {
  busy = true;
  document.querySelectorAll("#options button").forEach((b) => { b.disabled = true; });
  $("status").textContent = animate && pace > 0 ? "The bots are playing…" : "";
  await showLog(v.log, animate);
  renderTable(v);
  renderOptions(v);
  renderEnd(v);
  $("status").textContent = v.over ? "Game over." : "Your turn.";
  app.dataset.state = v.over ? "over" : "waiting";
  busy = false;
  const first = document.querySelector("#options button.legal");
  if (first) first.focus();
}

async function choose(option) {
  if (busy) return;
  $("message").textContent = "";
  try {
    app.dataset.state = "busy";
    await render(await call("/answer", {option: String(option)}), true);
  } catch (e) {
    $("message").textContent = e.message;
    app.dataset.state = "waiting";
    const first = document.querySelector("#options button.legal");
    if (first) first.focus();
  }
}

function row(tag, cells) {  // a table row: one <th> or <td> a cell
  const tr = el("tr");
  cells.forEach((x) => tr.appendChild(el(tag, String(x))));
  return tr;
}

async function fill(id, waiting, path, show) {  // the hint's and the review's box
  const box = $(id);
  box.replaceChildren(el("p", waiting));
  try {
    show(box, await call(path));
  } catch (e) { box.replaceChildren(el("p", e.message, "error")); }
}

function hint() {
  return fill("hint", "The search is thinking…", "/hint", (box, h) => {
    const tb = el("table");
    tb.appendChild(row("th", ["option", "value (points of margin at the round's end)", "spread over single deals (10th–90th percentile)", "win chance", ""]));
    h.options.forEach((o) => {
      const notes = [o.option === h.best ? "search's best" : "", o.option === h.skilled ? "skilled's choice" : ""].filter(Boolean).join("; ");
      tb.appendChild(row("td", [o.label, o.value.toFixed(2), `${o.spread[0]} to ${o.spread[1]}`, `${(100 * o.win).toFixed(0)}%`, notes]));
    });
    tb.id = "hint-table";
    box.replaceChildren(tb, el("p", `Values: ${h.bot}'s mean over 24 sampled deals of the cards you cannot see (your margin over the best other seat); win chance: the same search played to the game's end.`));
    document.querySelectorAll("#options button").forEach((b) => b.classList.toggle("best", Number(b.dataset.option) === h.best));
  });
}

function review() {
  return fill("review", "The search is valuing your decisions…", "/review", (box, r) => {
    const rounds = el("table");
    rounds.id = "rounds";
    rounds.appendChild(row("th", ["after round", ...(r.rounds[0]?.points.map((_, p) => `seat ${p}`) ?? [])]));
    r.rounds.forEach((x) => rounds.appendChild(row("td", [x.round, ...x.points])));
    const dec = el("table");
    dec.id = "decisions";
    dec.appendChild(row("th", ["decision", "round", "kind", "you played", "search's best", "worth (points)"]));
    r.decisions.forEach((d) => dec.appendChild(row("td", [d.decision, d.round, d.kind, d.played, d.best, d.loss.toFixed(2)])));
    box.replaceChildren(el("h3", "Points by round"), rounds,
      el("h3", "Your decisions, by how much the search's best option was worth over yours"), dec);
  });
}

$("hint-button").addEventListener("click", hint);
document.addEventListener("keydown", (e) => {
  if (e.key === "h" && !e.ctrlKey && !e.metaKey && !e.altKey && e.target.tagName !== "INPUT") hint();
});
call("").then((v) => render(v, false)).catch((e) => { $("status").textContent = e.message; });
