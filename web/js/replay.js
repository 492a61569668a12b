// A finished (or running) game step by step: GetRecord with includeViews gives the
// viewer's view after every entry, so the board is redrawn from the record alone.
import { api, errorText } from "./api.js";
import { clickable, h, mount } from "./dom.js";
import { GAMES, viewOf } from "./games/index.js";
import { seatLabel, seatsHeld } from "./seats.js";

export function replayPage(root, [gameId], query) {
  const token = query.get("token") || seatsHeld(gameId)[query.get("seat")] || "";
  let timer = null;
  mount(root, h("p", { class: "muted" }, "Loading the record…"));
  Promise.all([api.record(gameId, token), api.state(gameId, token)])
    .then(([record, state]) => show(root, gameId, record, state, query, (t) => (timer = t)))
    .catch((err) => mount(root, h("p", { class: "error" }, `Cannot load the record: ${errorText(err)}`)));
  return () => clearInterval(timer);
}

// Milliseconds a step stays on screen at each speed.
const SPEEDS = { "0.5×": 1200, "1×": 600, "2×": 300, "4×": 150 };

function describe(entry, game, view, viewer) {
  if (game && game.describe && view) return game.describe({ ...entry, kind: "ACTION" }, view, viewer);
  const actor = entry.actor || {};
  const who = actor.kind === "SEAT" ? `seat ${actor.seat ?? 0}` : "chance";
  return entry.hidden ? `${who}: (hidden)` : `${who}: ${entry.notation || ""}`;
}

function show(root, gameId, record, state, query, setTimer) {
  const entries = record.entries || [];
  const game = GAMES[record.gameType];
  const slider = h("input", { type: "range", min: 0, max: entries.length, value: 0, id: "replay-step", "aria-label": "replay step" });
  const viewer = state.viewerSeat === undefined ? null : Number(state.viewerSeat);
  let delay = SPEEDS["1×"];
  const speed = h(
    "select",
    { id: "replay-speed", "aria-label": "replay speed", onchange: () => {
      delay = SPEEDS[speed.value];
      if (playing) {
        togglePlay();
        togglePlay();
      }
    } },
    Object.keys(SPEEDS).map((name) => h("option", { value: name, selected: name === "1×" }, name)),
  );
  const caption = h("div", { class: "status-line", id: "replay-caption", "aria-live": "polite" });
  const board = h("div", { class: "board" });
  const panels = h("div", { class: "panels" });
  let playing = null;
  const playButton = h("button", { type: "button", id: "replay-play", onclick: () => togglePlay() }, "▶ Play");

  function go(step) {
    const clamped = Math.max(0, Math.min(entries.length, step));
    slider.value = String(clamped);
    const holder = clamped === 0 ? record.initialView : entries[clamped - 1].view;
    const view = viewOf(holder, record.gameType);
    const entry = clamped ? entries[clamped - 1] : null;
    mount(caption, h("strong", {}, `Step ${clamped} / ${entries.length}`), entry ? ` · ${describe(entry, game, view, viewer)}` : " · the start");
    page.dataset.step = String(clamped);
    // The URL keeps the step, so a moment can be shared (no new history entry).
    const params = new URLSearchParams(query);
    params.set("step", String(clamped));
    const url = `#/replay/${gameId}?${params}`;
    if (window.location.hash !== url) history.replaceState(null, "", url);
    mount(board);
    mount(panels);
    if (game && view) {
      game.draw({ board, panels }, view, {
        state,
        viewer: state.viewerSeat === undefined ? null : Number(state.viewerSeat),
        toMove: null,
        legal: [],
        lastMove: entry && !entry.hidden ? entry.notation : null,
        selection: {},
        act: () => {},
        select: () => {},
        seatLabel: (seat) => seatLabel(state, seat),
        clickable,
      });
    }
  }

  function togglePlay() {
    if (playing) {
      clearInterval(playing);
      playing = null;
      playButton.textContent = "▶ Play";
      return;
    }
    if (Number(slider.value) >= entries.length) go(0);
    playButton.textContent = "❚❚ Pause";
    playing = setInterval(() => {
      if (Number(slider.value) >= entries.length) togglePlay();
      else go(Number(slider.value) + 1);
    }, delay);
    setTimer(playing);
  }

  slider.addEventListener("input", () => go(Number(slider.value)));
  const returns = (record.returns || []).map((r, seat) => `${seatLabel(state, seat)}: ${r}`).join(", ");
  const page = h(
    "div",
    { class: "game-page replay", id: "replay", "data-game-type": record.gameType },
    h("div", { class: "game-head" }, h("h1", { class: "game-title" }, h("span", { class: `badge game-${record.gameType}` }, record.gameType), ` Replay of ${gameId.slice(0, 8)}`), h("a", { href: `#/game/${gameId}` }, "game page")),
    h(
      "div",
      { class: "card replay-controls" },
      h("button", { type: "button", onclick: () => go(0), "aria-label": "first step" }, "|◀"),
      h("button", { type: "button", onclick: () => go(Number(slider.value) - 1), "aria-label": "previous step" }, "◀"),
      slider,
      h("button", { type: "button", onclick: () => go(Number(slider.value) + 1), "aria-label": "next step" }, "▶"),
      h("button", { type: "button", onclick: () => go(entries.length), "aria-label": "last step" }, "▶|"),
      playButton,
      speed,
    ),
    caption,
    record.status === "FINISHED" ? h("p", { class: "muted small" }, `Final returns: ${returns}`) : h("p", { class: "muted small" }, "The game is still running: this record stops at its current move."),
    h("div", { class: "game-main" }, board, panels),
  );
  mount(root, page);
  // A replay opens at the start (or at the step its link names).
  const start = query.has("step") ? Number(query.get("step")) : 0;
  go(Number.isFinite(start) ? start : 0);
  slider.focus();
}
